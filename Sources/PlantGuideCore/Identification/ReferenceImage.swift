import Foundation

/// A photo of a candidate species from the identification service's own collection ("related images"), to
/// compare with one's plant before trusting the answer. Credited as the service gives it.
public struct ReferenceImage: Sendable, Codable, Hashable {
    /// The organ it shows (`leaf`, `flower`, …), when given.
    public var organ: String?
    /// Who took it, when given.
    public var author: String?
    /// Its licence, e.g. `cc-by-sa`, when given.
    public var license: String?
    /// The service's full credit line, when given.
    public var citation: String?
    /// Where the service serves it (a medium-sized rendition when there is one).
    public var url: String
    /// The SHA-256 of the copy kept on this device, once downloaded; pages show only kept copies, so a cached
    /// answer shows its reference photos offline too.
    public var localID: String?

    /// Creates a reference image.
    public init(
        organ: String? = nil, author: String? = nil, license: String? = nil, citation: String? = nil, url: String,
        localID: String? = nil
    ) {
        self.organ = organ
        self.author = author
        self.license = license
        self.citation = citation
        self.url = url
        self.localID = localID
    }

    /// "© Jane Doe · cc-by-sa", or whatever part of it is known.
    public var credit: String {
        [author.map { "© \($0)" }, license].compactMap { $0 }.joined(separator: " · ")
    }
}
