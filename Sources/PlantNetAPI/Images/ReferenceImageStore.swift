import AsyncHTTPClient
import Foundation
import PlantGuideCore
import PlantHTTP

/// Keeps copies of the reference photos of an answer ("related images") on this device, named by their SHA-256,
/// so the answer shows them offline too (from the identification cache, or long after).
///
/// Only the best few candidates' photos are fetched, at most ``PlantNetClient/referenceImagesPerCandidate`` each,
/// all at once, each bounded in time and size and checked to be a JPEG, PNG or WebP. A photo that cannot be fetched
/// is left without a local copy; it never fails the answer.
public final class ReferenceImageStore: Sendable {
    /// Where the copies live.
    public let directory: URL
    /// Candidates, best first, whose reference photos are kept.
    public let candidates: Int
    /// Largest photo accepted.
    public static let maximumBytes = 2 * 1_048_576
    private let http: HTTPClient
    private let timeout: Duration

    /// A store in `directory`.
    /// - Parameters:
    ///   - candidates: keep the photos of this many best candidates.
    ///   - timeout: the longest one photo's download may go without progress.
    ///   - http: the HTTP client the photos are fetched with; the server passes its own.
    public init(
        directory: URL, candidates: Int = 3, timeout: Duration = .seconds(10), http: HTTPClient = OutgoingHTTP.processClient
    ) {
        self.directory = directory
        self.candidates = candidates
        self.timeout = timeout
        self.http = http
    }

    /// The identification with a local copy of the reference photos of its best candidates (`localID` set).
    public func keep(_ identification: Identification) async -> Identification {
        var result = identification
        let kept = await keep(result.predictions.map(\.referenceImages))
        for index in kept.indices { result.predictions[index].referenceImages = kept[index] }
        return result
    }

    /// The diagnosis with a local copy of the photos of its best candidates (`localID` set).
    public func keep(_ diagnosis: Diagnosis) async -> Diagnosis {
        var result = diagnosis
        let kept = await keep(result.candidates.map(\.referenceImages))
        for index in kept.indices { result.candidates[index].referenceImages = kept[index] }
        return result
    }

    /// The photos of each candidate, best first, with local copies of those of the first ``candidates``.
    private func keep(_ lists: [[ReferenceImage]]) async -> [[ReferenceImage]] {
        var result = lists
        let wanted = lists.prefix(candidates).enumerated().flatMap { candidate, images in
            images.enumerated().map { (candidate: candidate, image: $0.offset, url: $0.element.url) }
        }
        guard !wanted.isEmpty else { return result }
        let kept = await withTaskGroup(of: (Int, Int, String?).self) { group in
            for item in wanted {
                group.addTask { (item.candidate, item.image, await self.fetch(item.url)) }
            }
            var kept: [(Int, Int, String?)] = []
            for await item in group { kept.append(item) }
            return kept
        }
        for (candidate, image, localID) in kept {
            result[candidate][image].localID = localID
        }
        return result
    }

    /// The file of a kept copy, or `nil` when `id` is not a SHA-256 or there is no such copy.
    public func file(id: String) -> URL? {
        guard id.utf8.count == 64, id.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
            return nil
        }
        let url = directory.appendingPathComponent(id)
        return FileManager.default.fileExists(atPath: url.path) ? url : nil
    }

    /// Downloads one photo and keeps it; its SHA-256, or `nil` when it could not be fetched or is not a photo.
    private func fetch(_ address: String) async -> String? {
        guard let url = URL(string: address), ["https", "http"].contains(url.scheme?.lowercased() ?? "") else { return nil }
        var request = HTTPClientRequest(url: url.absoluteString)
        request.headers.add(name: "Accept", value: "image/*")
        guard let answer = try? await http.fetch(request, timeout: timeout, limit: Self.maximumBytes), answer.status == 200,
              Self.isPhoto(answer.body)
        else { return nil }
        let data = answer.body
        let id = sha256Hex(data)
        let file = directory.appendingPathComponent(id)
        if FileManager.default.fileExists(atPath: file.path) { return id }
        do {
            try AtomicFile.write(data, to: file, permissions: 0o644)
        } catch {
            return nil
        }
        return id
    }

    /// JPEG, PNG or WebP by their first bytes: what every browser shows.
    static func isPhoto(_ data: Data) -> Bool {
        ImageFormat.detect(data)?.isShownByEveryBrowser ?? false
    }
}
