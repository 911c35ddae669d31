import Foundation
import PlantGuideCore

/// Everything that can go wrong when asking Pl@ntNet, as cases a caller (or a person) can act on.
///
/// A 404 "Species not found" is deliberately not here: it is the answer "this does not look like a plant"
/// and arrives as a ``PlantNetAnswer`` without predictions. No message ever contains the API key.
public enum PlantNetError: Error, Sendable, Equatable {
    /// No API key is configured.
    case missingAPIKey
    /// The request was refused before sending: wrong number of images, bad organs, and the like.
    case invalidRequest(String)
    /// 400: the service found the request malformed.
    case badRequest(String)
    /// 401: the API key is not valid.
    case invalidAPIKey
    /// 403: the key may not use this project or feature.
    case forbidden(String)
    /// 413, or more than the 50 MB the service accepts per request.
    case payloadTooLarge(bytes: Int?)
    /// 429, or a known count of zero: no identification until `resetsAt`.
    case quotaExhausted(resetsAt: Date)
    /// 5xx after the retry.
    case serverError(status: Int, message: String)
    /// Any other unexpected status.
    case unexpectedStatus(Int, String)
    /// No answer within the time limit.
    case timeout(seconds: Double)
    /// The service could not be reached (no network, DNS failure, connection refused).
    case offline(String)
    /// The answer could not be read.
    case malformedResponse(String)
    /// A local file (key, quota state, cache) could not be written.
    case storage(String)
}

extension PlantNetError: CustomStringConvertible, LocalizedError {
    public var description: String {
        switch self {
        case .missingAPIKey:
            "No Pl@ntNet API key. Set PLANTNET_API_KEY or run `plantguide config set-api-key` "
                + "(get a free key at https://my.plantnet.org)."
        case .invalidRequest(let reason):
            "Invalid identification request: \(reason)"
        case .badRequest(let message):
            "Pl@ntNet rejected the request (400): \(message)"
        case .invalidAPIKey:
            "Pl@ntNet refused the API key (401). Check PLANTNET_API_KEY or run `plantguide config set-api-key`."
        case .forbidden(let message):
            "Pl@ntNet refused access (403): \(message). Check that your account may use this project."
        case .payloadTooLarge(let bytes):
            "The photos are too large for Pl@ntNet (limit 50 MB per request"
                + (bytes.map { ", sent \($0 / 1_048_576) MB" } ?? "") + "). Send fewer or smaller photos."
        case .quotaExhausted(let resetsAt):
            "The Pl@ntNet daily quota is used up; it resets at \(Self.format(resetsAt)). "
                + "Use `--strategy on-device` until then."
        case .serverError(let status, let message):
            "Pl@ntNet failed (\(status)) even after a retry: \(message). Try again later."
        case .unexpectedStatus(let status, let message):
            "Pl@ntNet answered with an unexpected status \(status): \(message)"
        case .timeout(let seconds):
            "Pl@ntNet did not answer within \(seconds.formatted(.number.precision(.fractionLength(0...1)))) s."
        case .offline(let reason):
            "Pl@ntNet cannot be reached (\(reason)). Check the network connection."
        case .malformedResponse(let reason):
            "Pl@ntNet sent an answer that could not be read: \(reason)"
        case .storage(let reason):
            "Could not save Pl@ntNet state: \(reason)"
        }
    }

    public var errorDescription: String? { description }

    static func format(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }

    /// Replaces every occurrence of `secret` in the error's texts, so a key echoed back by a server or
    /// embedded in a URL never reaches a log or a terminal.
    func redacting(_ secret: String?) -> PlantNetError {
        guard let secret, !secret.isEmpty else { return self }
        let clean = { (text: String) in Redaction.redact(text, secret: secret) }
        switch self {
        case .invalidRequest(let text): return .invalidRequest(clean(text))
        case .badRequest(let text): return .badRequest(clean(text))
        case .forbidden(let text): return .forbidden(clean(text))
        case .serverError(let status, let text): return .serverError(status: status, message: clean(text))
        case .unexpectedStatus(let status, let text): return .unexpectedStatus(status, clean(text))
        case .offline(let text): return .offline(clean(text))
        case .malformedResponse(let text): return .malformedResponse(clean(text))
        case .storage(let text): return .storage(clean(text))
        default: return self
        }
    }
}

/// Hides secrets in text meant for people.
public enum Redaction {
    /// `text` with every occurrence of `secret` (and of its URL-encoded form) replaced by `***`.
    public static func redact(_ text: String, secret: String?) -> String {
        guard let secret, !secret.isEmpty else { return text }
        var result = text.replacingOccurrences(of: secret, with: "***")
        if let encoded = secret.addingPercentEncoding(withAllowedCharacters: .alphanumerics), encoded != secret {
            result = result.replacingOccurrences(of: encoded, with: "***")
        }
        return result
    }
}

extension PlantNetError {
    /// How the re-check queue treats this failure: the service's state (offline, timed out, failing, out of quota, not
    /// set up) stops the run and leaves the item waiting (the stop returned); a problem of the item itself (its photos
    /// refused, an unreadable answer) is `nil`, a failed try of that item.
    public var recheckStop: RecheckStop? {
        switch self {
        case .offline(let reason): .offline(reason)
        case .timeout, .serverError, .unexpectedStatus, .storage: .offline("\(self)")
        case .quotaExhausted: .quotaExhausted
        case .missingAPIKey, .invalidAPIKey, .forbidden: .notConfigured("\(self)")
        case .invalidRequest, .badRequest, .payloadTooLarge, .malformedResponse: nil
        }
    }

    /// Whether Pl@ntNet cannot answer now but should later (unreachable, timed out, failing, or out of quota for
    /// today): a request worth keeping to send again (it is not refused, and Pl@ntNet is set up).
    public var isWorthRetryingLater: Bool {
        switch recheckStop {
        case .offline, .quotaExhausted: true
        case .reserve, .notConfigured, nil: false
        }
    }
}
