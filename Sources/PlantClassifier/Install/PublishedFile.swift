import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import PlantHTTP

/// A file as a Zenodo record publishes it: its size and MD5 checksum (Zenodo's `"checksum": "md5:…"`).
public struct PublishedFile: Sendable, Equatable {
    public var size: Int64?
    /// Lower-case hex.
    public var md5: String?

    public init(size: Int64?, md5: String?) {
        self.size = size
        self.md5 = md5
    }

    /// The files of a record's JSON by name. Reads both forms Zenodo serves: `"files": [{"key", "size",
    /// "checksum"}]` (the records API) and `"files": {"entries": {name: {"size", "checksum"}}}` (the export).
    public static func parseRecord(_ data: Data) throws -> [String: PublishedFile] {
        guard let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw ClassifierError.downloadFailed(url: "the Zenodo record", reason: "its metadata is not JSON")
        }
        var entries: [(String?, [String: Any])] = []
        if let list = root["files"] as? [[String: Any]] {
            entries = list.map { ($0["key"] as? String ?? $0["filename"] as? String, $0) }
        } else if let files = root["files"] as? [String: Any] {
            if let named = files["entries"] as? [String: [String: Any]] {
                entries = named.map { ($0.key, $0.value) }
            } else if let list = files["entries"] as? [[String: Any]] {
                entries = list.map { ($0["key"] as? String, $0) }
            }
        }
        var result: [String: PublishedFile] = [:]
        for (name, entry) in entries {
            guard let name else { continue }
            let size = (entry["size"] as? NSNumber)?.int64Value ?? (entry["filesize"] as? NSNumber)?.int64Value
            let checksum = (entry["checksum"] as? String)?.lowercased()
            let md5 = checksum.flatMap { text -> String? in
                let hex = text.hasPrefix("md5:") ? String(text.dropFirst(4)) : text
                return hex.count == 32 && hex.allSatisfy(\.isHexDigit) ? hex : nil
            }
            result[name] = PublishedFile(size: size, md5: md5)
        }
        return result
    }

    /// Reads the record at `url` (at most 4 MiB of JSON, `timeout` for the whole exchange).
    public static func fetchRecord(
        _ url: URL, http: HTTPClient = OutgoingHTTP.processClient, timeout: Duration = .seconds(20)
    ) async throws -> [String: PublishedFile] {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.headers.add(name: "Accept", value: "application/json")
        do {
            let response = try await http.execute(request, timeout: OutgoingHTTP.timeAmount(timeout))
            guard response.status.code == 200 else {
                throw ClassifierError.downloadFailed(url: url.absoluteString, reason: "the server answered HTTP \(response.status.code)")
            }
            let body = try await response.body.collect(upTo: 4 << 20)
            return try parseRecord(Data(body.readableBytesView))
        } catch let error as ClassifierError {
            throw error
        } catch {
            throw ClassifierError.downloadFailed(url: url.absoluteString, reason: "\(HTTPFailure(error))")
        }
    }

    /// The MD5 of the file at `url`, read 4 MiB at a time.
    public static func md5(of url: URL) throws -> String {
        guard let handle = try? FileHandle(forReadingFrom: url) else {
            throw ClassifierError.unreadableFile(path: url.path, reason: "cannot open")
        }
        defer { try? handle.close() }
        var hasher = Insecure.MD5()
        while true {
            let chunk: Data?
            do { chunk = try handle.read(upToCount: 4 << 20) } catch {
                throw ClassifierError.unreadableFile(path: url.path, reason: (error as NSError).localizedDescription)
            }
            guard let chunk, !chunk.isEmpty else { break }
            hasher.update(data: chunk)
        }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }
}
