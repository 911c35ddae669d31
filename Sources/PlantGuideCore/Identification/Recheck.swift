import Foundation

/// Why an identification waits for Pl@ntNet to check it again later.
public enum RecheckReason: String, Sendable, Codable, Hashable, CaseIterable {
    /// Pl@ntNet could not be reached (no connection, timed out, backing off): the device answered.
    case offline
    /// The daily Pl@ntNet quota was used up: the device answered.
    case quota
    /// The device answered below the confidence threshold and Pl@ntNet gave no answer.
    case uncertain

    /// The reason as a person reads it, e.g. "Pl@ntNet could not be reached".
    public var label: String {
        switch self {
        case .offline: "Pl@ntNet could not be reached"
        case .quota: "the Pl@ntNet quota was used up"
        case .uncertain: "the device was not sure"
        }
    }
}

/// What asking Pl@ntNet again about one queued identification gave, as the re-check queue needs to know it.
public enum RecheckAnswer: Sendable {
    /// Pl@ntNet answered (possibly with no candidate: "no plant here").
    case answered(Identification, remainingRequests: Int?)
    /// This item cannot be checked (the photos were refused, the answer was malformed): count a failed attempt and go
    /// on with the next one.
    case failed(String)
    /// Nothing can be checked now (offline, out of quota, a 429, no key): stop draining and leave the queue as it is.
    case stop(RecheckStop)
}

/// What asking Pl@ntNet's disease service about a health record that waited gave, as the re-check queue needs to know it.
public enum DiagnosisRecheckAnswer: Sendable {
    /// The service answered (possibly with no disease found).
    case answered(Diagnosis, remainingRequests: Int?)
    /// The service saw no plant in the photos: sending them again would not change that, so the record gives up.
    case rejected
    /// This record cannot be diagnosed (its photos were refused, the answer was malformed): count a failed try.
    case failed(String)
    /// Nothing can be sent now (offline, out of quota, no key): stop and leave the record waiting.
    case stop(RecheckStop)
}

/// Why draining the re-check queue stopped before its end.
public enum RecheckStop: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Pl@ntNet cannot be reached.
    case offline(String)
    /// The daily quota is used up (or a 429 said so).
    case quotaExhausted
    /// Sending more would eat into the requests kept for identifications asked for now.
    case reserve(remaining: Int, reserve: Int)
    /// Pl@ntNet is not set up (no API key).
    case notConfigured(String)

    public var description: String {
        switch self {
        case .offline(let reason): "Pl@ntNet cannot be reached (\(reason))."
        case .quotaExhausted: "The Pl@ntNet quota for today is used up."
        case .reserve(let remaining, let reserve):
            "\(counted(remaining, "request")) left today, and \(reserve) are kept for identifications asked for now."
        case .notConfigured(let reason): "Pl@ntNet is not set up: \(reason)"
        }
    }
}
