import Foundation
import PlantGuideCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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

    /// The stored file of a photo; a file in the trash is put back first (a photo stored again by another writer while
    /// its last user was removing it).
    public func url(of photo: StoredPhoto) -> URL {
        let url = fileURL(sha: photo.sha256, mediaType: photo.mediaType)
        restoreFromTrash(url, trashName: url.lastPathComponent)
        return url
    }

    /// The thumbnail file of a photo, if it has one; put back from the trash like ``url(of:)``.
    public func thumbnailURL(of photo: StoredPhoto) -> URL? {
        guard let sha = photo.thumbnailSHA256 else { return nil }
        let url = thumbnailURL(sha: sha)
        restoreFromTrash(url, trashName: Self.thumbnailTrashPrefix + url.lastPathComponent)
        return url
    }

    /// The trash: `photos/trash/`, where the files of photos no longer in the database wait before they are deleted.
    public var trash: URL { root.appendingPathComponent("trash", isDirectory: true) }

    /// How long a file stays in the trash at least: longer than any writer takes between finding a stored photo and
    /// recording that it uses it (connections and row locks give up within a minute).
    public static let trashAge: TimeInterval = 3_600

    /// Moves the files of photos no longer in the database into the trash (missing files are ignored). They are not
    /// deleted at once: another writer (a thread, or a server replica sharing the data directory) may have found the same
    /// photo stored just before it was released and be recording its own use of it. ``emptyTrash(olderThan:now:store:)``
    /// deletes them later, or puts them back when a photo names them again.
    public func removeFiles(of photos: [StoredPhoto], now: Date = Date()) {
        for photo in photos {
            let file = fileURL(sha: photo.sha256, mediaType: photo.mediaType)
            moveToTrash(file, trashName: file.lastPathComponent, now: now)
            if let sha = photo.thumbnailSHA256 {
                let thumbnail = thumbnailURL(sha: sha)
                moveToTrash(thumbnail, trashName: Self.thumbnailTrashPrefix + thumbnail.lastPathComponent, now: now)
            }
        }
    }

    /// Deletes the files that have been in the trash for `age` or longer and that no photo of any household names, and
    /// puts back the files a photo names again. A store that cannot be read leaves the trash as it is. Returns how many
    /// files were deleted and how many put back.
    @discardableResult
    public func emptyTrash(olderThan age: TimeInterval = trashAge, now: Date, store: any PlantsStore) async
        -> (deleted: Int, restored: Int) {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: trash.path)) ?? []).filter { !$0.hasPrefix(".") }
        var entries: [(name: String, sha: String)] = []
        for name in names {
            let bare = name.hasPrefix(Self.thumbnailTrashPrefix) ? String(name.dropFirst(Self.thumbnailTrashPrefix.count)) : name
            let sha = String(bare.prefix { $0 != "." })
            guard sha.count == 64, sha.allSatisfy(\.isHexDigit) else { continue }
            entries.append((name, sha))
        }
        guard !entries.isEmpty, let used = try? await store.photoFilesInUse(Array(Set(entries.map(\.sha)))) else { return (0, 0) }
        var deleted = 0, restored = 0
        for entry in entries {
            let file = trash.appendingPathComponent(entry.name)
            if used.contains(entry.sha) {
                if restoreFromTrash(libraryURL(ofTrashName: entry.name, sha: entry.sha), trashName: entry.name) { restored += 1 }
                continue
            }
            let trashed = (try? FileManager.default.attributesOfItem(atPath: file.path)[.modificationDate] as? Date) ?? now
            guard now.timeIntervalSince(trashed) >= age else { continue }
            if (try? FileManager.default.removeItem(at: file)) != nil { deleted += 1 }
        }
        return (deleted, restored)
    }

    /// The trash names of thumbnails start with this.
    private static let thumbnailTrashPrefix = "thumbnail."

    /// Renames `file` into the trash and dates it now (the trash's clock); nothing when it is not there.
    private func moveToTrash(_ file: URL, trashName: String, now: Date) {
        guard FileManager.default.fileExists(atPath: file.path) else { return }
        let target = trash.appendingPathComponent(trashName)
        do {
            try FileManager.default.createDirectory(at: trash, withIntermediateDirectories: true)
            guard rename(file.path, target.path) == 0 else { return }
            try? FileManager.default.setAttributes([.modificationDate: now], ofItemAtPath: target.path)
        } catch {
            return
        }
    }

    /// Puts a trashed file back at `file` when it is missing there; whether it did.
    @discardableResult
    private func restoreFromTrash(_ file: URL, trashName: String) -> Bool {
        guard !FileManager.default.fileExists(atPath: file.path) else { return false }
        let trashed = trash.appendingPathComponent(trashName)
        guard FileManager.default.fileExists(atPath: trashed.path) else { return false }
        try? FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        return rename(trashed.path, file.path) == 0
    }

    /// Where a file of the trash came from.
    private func libraryURL(ofTrashName name: String, sha: String) -> URL {
        if name.hasPrefix(Self.thumbnailTrashPrefix) { return thumbnailURL(sha: sha) }
        return root.appendingPathComponent(String(sha.prefix(2)), isDirectory: true).appendingPathComponent(name)
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
