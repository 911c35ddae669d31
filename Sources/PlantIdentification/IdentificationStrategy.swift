/// How the hybrid identifier combines the on-device classifier and Pl@ntNet.
public enum IdentificationStrategy: String, Sendable, Codable, Hashable, CaseIterable {
    /// The device only; works offline, knows fewer species.
    case onDevice = "on-device"
    /// Pl@ntNet only; an error when it cannot answer (offline, no quota, no key).
    case api
    /// The device first; Pl@ntNet only when the device's best confidence is below the threshold.
    case onDeviceFirst = "on-device-first"
    /// Both at once; Pl@ntNet's answer is preferred, both are kept.
    case parallel
}
