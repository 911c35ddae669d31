import Foundation
import PlantGuideCore

/// Photo files under the data directory, named by the SHA-256 of their content:
/// `photos/ab/abcdef….jpg`, thumbnails in `photos/thumbnails/`. A photo used by two plants is one file.
///
/// Files are written before the database row that refers to them, so a crash can leave at most an
/// unreferenced file, never a row pointing at nothing. Each file is written to a `.<sha>.<uuid>.partial`
/// beside its final name, flushed and renamed over it, so writers storing the same photo at once (threads,
/// or server replicas sharing the directory) are safe and a reader never sees half a file. A crashed
/// writer's partial file is removed once it is a day old (``removeLeftoverPartialFiles(now:)``, and in
/// each folder a photo is written to).
public struct PhotoLibrary: Sendable {
    /// The `photos` folder.
    public let root: URL
    /// Makes the stored file and thumbnail from an original.
    public let encoder: PhotoEncoder
    /// Largest original accepted, in bytes.
    public var maxBytes = 50 * 1024 * 1024
    /// Tests only: called before each chunk of a file is written with the bytes written so far; an error
    /// code it returns fails the write there, as a full disk or a lost NFS server would.
    var writeFault: (@Sendable (_ written: Int) -> Int32?)?

    /// A library in `directory/photos`.
    public init(directory: DataDirectory, encoder: PhotoEncoder) {
        root = directory.appending("photos")
        self.encoder = encoder
    }

    /// Stores a photo file (if not stored already) and returns its description for the database.
    /// `existing` is consulted first so a repeated original is not encoded again.
    public func store(
        _ original: Data, now: Date, existing: (String) throws(StoreError) -> StoredPhoto? = { _ in nil }
    ) throws(StoreError) -> StoredPhoto {
        let originalSHA = try originalSHA256(of: original)
        return try store(original, originalSHA256: originalSHA, known: try existing(originalSHA), now: now)
    }

    /// The SHA-256 of an original photo, once it is known to be one this library takes (not empty, not over
    /// ``maxBytes``): what a repeated original is recognised by.
    public func originalSHA256(of original: Data) throws(StoreError) -> String {
        guard !original.isEmpty else { throw .photo("the file is empty") }
        guard original.count <= maxBytes else { throw .photo("the file is larger than \(maxBytes / 1_048_576) MB") }
        return sha256Hex(original)
    }

    /// Stores a photo whose hash ``originalSHA256(of:)`` gave; `known`, the record of the same original stored
    /// before, is returned as it is while its file is complete, so the photo is not encoded again.
    public func store(_ original: Data, originalSHA256 originalSHA: String, known: StoredPhoto?, now: Date) throws(StoreError)
        -> StoredPhoto {
        if let known, PhotoFile.isComplete(url(of: known), byteCount: known.byteCount) {
            return known
        }
        let encoded: EncodedPhoto
        do {
            encoded = try encoder.encode(original)
        } catch {
            throw .photo("cannot read the image (\(error))")
        }
        guard !encoded.data.isEmpty else { throw .photo("the encoder produced an empty file") }
        let sha = sha256Hex(encoded.data)
        try writeOnce(encoded.data, sha: sha, to: fileURL(sha: sha, mediaType: encoded.mediaType))
        var thumbnailSHA: String?
        if let thumbnail = encoded.thumbnail, !thumbnail.isEmpty {
            let thumbSHA = sha256Hex(thumbnail)
            try writeOnce(thumbnail, sha: thumbSHA, to: thumbnailURL(sha: thumbSHA))
            thumbnailSHA = thumbSHA
        }
        return StoredPhoto(
            sha256: sha, originalSHA256: originalSHA, mediaType: encoded.mediaType, byteCount: encoded.data.count,
            width: encoded.width, height: encoded.height, thumbnailSHA256: thumbnailSHA, createdAt: now.roundedToMilliseconds
        )
    }

    /// Stores the exact bytes of an already-encoded photo (used by import), checking the checksum.
    public func restore(_ photo: StoredPhoto, data: Data, thumbnail: Data?) throws(StoreError) {
        guard sha256Hex(data) == photo.sha256 else { throw .badArchive("photo \(photo.sha256) does not match its checksum") }
        try writeOnce(data, sha: photo.sha256, to: url(of: photo))
        if let thumbnail, let thumbSHA = photo.thumbnailSHA256 {
            guard sha256Hex(thumbnail) == thumbSHA else { throw .badArchive("thumbnail \(thumbSHA) does not match its checksum") }
            try writeOnce(thumbnail, sha: thumbSHA, to: thumbnailURL(sha: thumbSHA))
        }
    }

    /// The stored file of a photo.
    public func url(of photo: StoredPhoto) -> URL { fileURL(sha: photo.sha256, mediaType: photo.mediaType) }

    /// The thumbnail file of a photo, if it has one.
    public func thumbnailURL(of photo: StoredPhoto) -> URL? { photo.thumbnailSHA256.map(thumbnailURL(sha:)) }

    /// Deletes the files of photos no longer in the database. Missing files are ignored.
    public func removeFiles(of photos: [StoredPhoto]) {
        for photo in photos {
            try? FileManager.default.removeItem(at: url(of: photo))
            if let thumbnail = thumbnailURL(of: photo) { try? FileManager.default.removeItem(at: thumbnail) }
        }
    }

    /// Removes the `.partial` files that writers which crashed or lost their connection left behind, once
    /// they are a day old (younger ones may still be being written by another process). Returns how many.
    @discardableResult
    public func removeLeftoverPartialFiles(now: Date) -> Int {
        let thumbnails = root.appendingPathComponent("thumbnails", isDirectory: true)
        var folders = [root, thumbnails]
        for parent in [root, thumbnails] {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: parent.path)) ?? []
            folders += names.filter { $0.count == 2 }.map { parent.appendingPathComponent($0, isDirectory: true) }
        }
        return folders.reduce(0) { $0 + PhotoFile.removeStalePartials(in: $1, now: now) }
    }

    /// The file-name extension for a media type.
    public static func fileExtension(for mediaType: String) -> String {
        switch mediaType {
        case "image/jpeg": "jpg"
        case "image/png": "png"
        case "image/webp": "webp"
        case "image/heic": "heic"
        default: "bin"
        }
    }

    private func fileURL(sha: String, mediaType: String) -> URL {
        root.appendingPathComponent(String(sha.prefix(2)), isDirectory: true)
            .appendingPathComponent("\(sha).\(Self.fileExtension(for: mediaType))")
    }

    private func thumbnailURL(sha: String) -> URL {
        root.appendingPathComponent("thumbnails", isDirectory: true)
            .appendingPathComponent(String(sha.prefix(2)), isDirectory: true).appendingPathComponent("\(sha).jpg")
    }

    /// Writes a content-addressed file unless a complete copy is there already (one of another size, left by
    /// an older version or damaged, is replaced), and clears the folder of day-old partial files.
    private func writeOnce(_ data: Data, sha: String, to url: URL) throws(StoreError) {
        if PhotoFile.isComplete(url, byteCount: data.count) { return }
        do throws(PhotoFile.Failure) {
            try PhotoFile.write(data, to: url, sha: sha, fault: writeFault)
        } catch {
            throw .file(path: url.path, reason: "cannot write the photo (\(error))")
        }
        PhotoFile.removeStalePartials(in: url.deletingLastPathComponent(), now: Date())
    }
}
