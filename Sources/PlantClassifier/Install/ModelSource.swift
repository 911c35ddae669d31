import Foundation

/// Where `model install`, `scripts/run` and the web app take the PlantNet-300K weights from: the official Zenodo
/// record (4726653) or a mirror named by `PLANTGUIDE_MODEL_URL`, a base URL under which
/// `<arch>_weights_best_acc.tar` lives.
///
/// A file from the official record is checked against the size and MD5 checksum the record publishes. A mirror may
/// hold other weights under the same names (a re-trained or re-exported checkpoint), so there the published checksum
/// is shown beside the file's own, not enforced. Either way the archive is imported (which checks it is whole and that
/// the network it holds fits) before it becomes the default.
public struct ModelSource: Sendable, Equatable {
    /// The Zenodo record that publishes the PlantNet-300K weights.
    public static let recordID = "4726653"
    /// The environment variable naming a mirror.
    public static let mirrorVariable = "PLANTGUIDE_MODEL_URL"
    /// The environment variable naming another Zenodo (its base URL); the tests point it at a loopback server.
    public static let zenodoVariable = "PLANTGUIDE_ZENODO_URL"

    /// The mirror's base URL, or `nil` for the official record.
    public let mirror: URL?
    /// Zenodo's base URL (`https://zenodo.org`), which publishes the record's sizes and checksums.
    public let zenodo: URL

    /// - Throws: ``ClassifierError/downloadFailed(url:reason:)`` when a URL is not https (plain http is allowed for
    ///   loopback hosts only) or has no host.
    public init(mirror: URL?, zenodo: URL = URL(string: "https://zenodo.org")!) throws {
        if let mirror { try Self.checkAllowed(mirror) }
        try Self.checkAllowed(zenodo)
        self.mirror = mirror
        self.zenodo = zenodo
    }

    /// The source the environment names (`PLANTGUIDE_MODEL_URL`, else the official record).
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws -> ModelSource {
        func url(_ name: String) throws -> URL? {
            guard let text = environment[name]?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
            guard let url = URL(string: text), url.host != nil else {
                throw ClassifierError.downloadFailed(url: text, reason: "\(name) is not a URL (example: https://example.org/plantnet/)")
            }
            return url
        }
        let zenodo = try url(zenodoVariable) ?? URL(string: "https://zenodo.org")!
        return try ModelSource(mirror: try url(mirrorVariable), zenodo: zenodo)
    }

    /// Whether the published checksum is enforced (the official record) or only shown (a mirror).
    public var isOfficial: Bool { mirror == nil }

    /// The file name the record and mirrors use for `architecture`.
    public static func fileName(for architecture: ResNetArchitecture) -> String {
        "\(architecture.rawValue)_weights_best_acc.tar"
    }

    /// Where the checkpoint for `architecture` is downloaded from.
    public func url(for architecture: ResNetArchitecture) -> URL {
        let name = Self.fileName(for: architecture)
        if let mirror { return mirror.appendingPathComponent(name) }
        var components = URLComponents(url: zenodo, resolvingAgainstBaseURL: false)!
        components.path = zenodo.path.trimmingSuffix("/") + "/records/\(Self.recordID)/files/\(name)"
        components.queryItems = [URLQueryItem(name: "download", value: "1")]
        return components.url!
    }

    /// The record's metadata (its files with their sizes and checksums) in Zenodo's API.
    public var recordURL: URL {
        var components = URLComponents(url: zenodo, resolvingAgainstBaseURL: false)!
        components.path = zenodo.path.trimmingSuffix("/") + "/api/records/\(Self.recordID)"
        return components.url!
    }

    /// A short name for messages: "Zenodo record 4726653" or the mirror's URL.
    public var description: String {
        mirror.map { "\($0.absoluteString) (\(Self.mirrorVariable))" } ?? "Zenodo record \(Self.recordID)"
    }

    /// Refuses a URL PlantGuide will not download from: anything but https, except plain http to a loopback host.
    public static func checkAllowed(_ url: URL) throws {
        guard let host = url.host, !host.isEmpty else {
            throw ClassifierError.downloadFailed(url: url.absoluteString, reason: "the URL has no host")
        }
        switch url.scheme?.lowercased() {
        case "https": return
        case "http" where isLoopback(host): return
        case "http":
            throw ClassifierError.downloadFailed(
                url: url.absoluteString, reason: "plain http is allowed only for a server on this machine (127.0.0.1); use https"
            )
        default:
            throw ClassifierError.downloadFailed(url: url.absoluteString, reason: "only https URLs are downloaded")
        }
    }

    /// 127.0.0.0/8, ::1 and localhost.
    public static func isLoopback(_ host: String) -> Bool {
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased()
        return bare == "localhost" || bare == "::1" || bare.hasPrefix("127.")
    }
}

extension String {
    fileprivate func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
