import Foundation
import PlantGuideCore
import PlantStore
import ZIPFoundation

/// Writes and reads export archives: a ZIP file holding `collection.json` (see ``CollectionExport``),
/// `photos/<sha256>.<ext>` and `thumbnails/<sha256>.jpg`.
public struct CollectionArchive: Sendable {
    public let store: any CollectionStore
    public let photos: PhotoLibrary
    /// Written into the archive as its generator.
    public var generator = "PlantGuide"

    /// Largest single file accepted from an archive.
    static let maxEntryBytes: UInt64 = 200 * 1024 * 1024

    /// An archiver over a collection's store and photo files.
    public init(store: any CollectionStore, photos: PhotoLibrary) {
        self.store = store
        self.photos = photos
    }

    /// The collection as the export format, read in one consistent snapshot.
    public func snapshot(now: Date) async throws(StoreError) -> CollectionExport {
        try await store.exportSnapshot(now: now, generator: generator)
    }

    /// Writes the whole collection to a ZIP file at `url` (replacing it only when complete).
    @discardableResult
    public func export(to url: URL, now: Date) async throws(StoreError) -> CollectionExport {
        let content = try await snapshot(now: now)
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).partial")
        do {
            let archive = try Archive(url: temporary, accessMode: .create)
            let json = try CollectionExport.encoder().encode(content)
            try add(json, as: "collection.json", to: archive, compress: true)
            for photo in content.photos {
                let stored = StoredPhoto(
                    sha256: photo.sha256, originalSHA256: photo.originalSHA256, mediaType: photo.mediaType,
                    byteCount: photo.byteCount, width: photo.width, height: photo.height,
                    thumbnailSHA256: photo.thumbnailSHA256, createdAt: photo.createdAt
                )
                let data = try Data(contentsOf: photos.url(of: stored))
                try add(data, as: photo.file, to: archive, compress: false)
                if let thumbnailPath = photo.thumbnail, let thumbnailURL = photos.thumbnailURL(of: stored) {
                    try add(try Data(contentsOf: thumbnailURL), as: thumbnailPath, to: archive, compress: false)
                }
            }
            if FileManager.default.fileExists(atPath: url.path) { try FileManager.default.removeItem(at: url) }
            try FileManager.default.moveItem(at: temporary, to: url)
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            if let error = error as? StoreError { throw error }
            throw .file(path: url.path, reason: "cannot write the export (\(error))")
        }
        return content
    }

    /// Reads an export archive into the collection: photos are written first, then every row in one
    /// transaction. Plants, events, photos and identifications already present (same UUID or
    /// SHA-256) are left as they are, so importing twice adds nothing the second time.
    @discardableResult
    public func importArchive(from url: URL) async throws(StoreError) -> ImportSummary {
        let archive: Archive
        do {
            archive = try Archive(url: url, accessMode: .read)
        } catch {
            throw .badArchive("\(url.path) is not a readable ZIP file (\(error))")
        }
        let content: CollectionExport
        do {
            content = try CollectionExport.decoder().decode(CollectionExport.self, from: try read("collection.json", from: archive))
        } catch let error as StoreError {
            throw error
        } catch {
            throw .badArchive("collection.json does not match the format (\(error))")
        }
        guard content.format == CollectionExport.formatName else { throw .badArchive("format is '\(content.format)'") }
        guard content.formatVersion <= CollectionExport.currentVersion else {
            throw .badArchive("format version \(content.formatVersion) is newer than this PlantGuide reads (\(CollectionExport.currentVersion))")
        }
        // Files first: a crash after this leaves only unreferenced files.
        for photo in content.photos {
            guard Self.isHex64(photo.sha256), photo.thumbnailSHA256.map(Self.isHex64) ?? true else {
                throw .badArchive("photo name \(photo.sha256) is not a SHA-256")
            }
            let data = try read(photo.file, from: archive)
            let thumbnail = try photo.thumbnail.map { path throws(StoreError) in try read(path, from: archive) }
            try photos.restore(photo.storedPhoto, data: data, thumbnail: thumbnail)
        }
        return try await store.importRows(content)
    }

    private func add(_ data: Data, as path: String, to archive: Archive, compress: Bool) throws {
        try archive.addEntry(
            with: path, type: .file, uncompressedSize: Int64(data.count), modificationDate: Date(timeIntervalSince1970: 0),
            compressionMethod: compress ? .deflate : .none
        ) { position, size in
            data.subdata(in: Int(position)..<min(data.count, Int(position) + size))
        }
    }

    private func read(_ path: String, from archive: Archive) throws(StoreError) -> Data {
        guard let entry = archive[path] else { throw .badArchive("\(path) is missing") }
        guard entry.type == .file, entry.uncompressedSize <= Self.maxEntryBytes else {
            throw .badArchive("\(path) is not a file of acceptable size")
        }
        var data = Data()
        do {
            _ = try archive.extract(entry) { chunk in
                data.append(chunk)
                if data.count > Self.maxEntryBytes { throw StoreError.badArchive("\(path) is larger than it claims") }
            }
        } catch {
            throw .badArchive("\(path) cannot be extracted (\(error))")
        }
        return data
    }

    private static func isHex64(_ text: String) -> Bool {
        text.count == 64 && text.allSatisfy { "0123456789abcdef".contains($0) }
    }
}
