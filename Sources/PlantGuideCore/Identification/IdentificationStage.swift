/// A timed stage of one identification. The raw values are the keys of ``Identification/timings``, of the
/// `timings` objects in the command line's and the web API's JSON, and of the stored history, so every part names
/// a stage the same way.
public enum IdentificationStage: String, Sendable, Codable, Hashable, CaseIterable {
    /// Waiting for a turn on the server (other identifications were running).
    case queue
    /// Reading the photos' bytes into pixels (on the device).
    case decode
    /// Resizing, cropping and normalising the pixels into the model's input (on the device).
    case preprocess
    /// The on-device network's forward pass.
    case inference
    /// Re-encoding the photos for Pl@ntNet (JPEG, long side ≤ 1280 px, metadata stripped).
    case prepareUpload
    /// The round trip to Pl@ntNet; absent for an answer from the cache, which made no request.
    case request
    /// From the start of the identification to its answer (on the server: from receiving the photos).
    case total

    /// A short name for tables, e.g. "Inference".
    public var label: String {
        switch self {
        case .queue: "Queue"
        case .decode: "Decode"
        case .preprocess: "Preprocess"
        case .inference: "Inference"
        case .prepareUpload: "Upload preparation"
        case .request: "Pl@ntNet round trip"
        case .total: "Total"
        }
    }
}

extension Dictionary where Key == String, Value == Double {
    /// The milliseconds spent in `stage`, when it was measured.
    public subscript(stage stage: IdentificationStage) -> Double? {
        get { self[stage.rawValue] }
        set { self[stage.rawValue] = newValue }
    }

    /// Only the timings of known stages with a finite, non-negative value: what is worth keeping.
    public var stageTimings: [String: Double] {
        filter { key, value in IdentificationStage(rawValue: key) != nil && value.isFinite && value >= 0 }
    }
}
