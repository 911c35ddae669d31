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

    /// The stored file of a photo. When it is not in place but waits in the trash (another writer recorded its use of
    /// the photo while its last user was removing it), the trashed file: it is put back in place when the trash is
    /// emptied, which checks that a photo still names it.
    public func url(of photo: StoredPhoto) -> URL {
        placedOrTrashed(fileURL(sha: photo.sha256, mediaType: photo.mediaType), thumbnail: false)
    }

    /// The thumbnail file of a photo, if it has one; from the trash like ``url(of:)``.
    public func thumbnailURL(of photo: StoredPhoto) -> URL? {
        photo.thumbnailSHA256.map { placedOrTrashed(thumbnailURL(sha: $0), thumbnail: true) }
    }

    /// The trash: `photos/trash/`, where the files of photos no longer in the database wait before they are deleted.
    public var trash: URL { root.appendingPathComponent("trash", isDirectory: true) }

    /// How long a file stays in the trash at least: longer than any writer takes between finding a stored photo and
    /// recording that it uses it (connections and row locks give up within a minute).
    public static let trashAge: TimeInterval = 3_600

    /// Moves the files of photos no longer in the database into the trash (missing files are ignored). They are not
    /// deleted at once: another writer (a thread, or a server replica sharing the data directory) may have found the same
    /// photo stored just before it was released and be recording its own use of it. ``emptyTrash(olderThan:now:store:)``
    /// deletes them later, or puts them back when a photo names them again. The time is in the trashed file's name, so
    /// no file system's timestamps (or their caches on NFS) decide when a file may go.
    public func removeFiles(of photos: [StoredPhoto], now: Date) {
        for photo in photos {
            moveToTrash(fileURL(sha: photo.sha256, mediaType: photo.mediaType), thumbnail: false, now: now)
            if let sha = photo.thumbnailSHA256 { moveToTrash(thumbnailURL(sha: sha), thumbnail: true, now: now) }
        }
    }

    /// Deletes the files that have been in the trash for `age` or longer and that no photo of any household names, and
    /// puts back in place those a photo names again (a copy already back in place makes the trashed one redundant).
    /// Younger files are left to a later round without asking the store; a store that cannot be read leaves the trash as
    /// it is. Returns how many trashed files were deleted and how many put back.
    @discardableResult
    public func emptyTrash(olderThan age: TimeInterval = trashAge, now: Date, store: any PlantsStore) async
        -> (deleted: Int, restored: Int) {
        let due = trashEntries().filter { now.timeIntervalSince($0.trashedAt) >= age }
        guard !due.isEmpty, let used = try? await store.photoFilesInUse(Array(Set(due.map(\.sha)))) else { return (0, 0) }
        var deleted = 0, restored = 0
        for entry in due {
            let trashed = trash.appendingPathComponent(entry.name)
            if used.contains(entry.sha) {
                let placed = libraryURL(ofTrashEntry: entry)
                if !FileManager.default.fileExists(atPath: placed.path) {
                    try? FileManager.default.createDirectory(at: placed.deletingLastPathComponent(), withIntermediateDirectories: true)
                    if rename(trashed.path, placed.path) == 0 { restored += 1 }
                    continue
                }
            }
            // Nothing names it, or a copy is back in place (the photo was stored again): the trashed copy goes.
            if (try? FileManager.default.removeItem(at: trashed)) != nil { deleted += 1 }
        }
        return (deleted, restored)
    }

    /// A file in the trash: `<stem>~<milliseconds since 1970 when it was trashed>`, where the stem is its name in the
    /// library, prefixed `thumbnail.` for a thumbnail (``trashStem(of:thumbnail:)``).
    private struct TrashEntry {
        var name: String
        var stem: String
        var sha: String
        var trashedAt: Date
    }

    /// The trash names of thumbnails start with this.
    private static let thumbnailTrashPrefix = "thumbnail."

    /// The stem of a library file's names in the trash.
    private static func trashStem(of file: URL, thumbnail: Bool) -> String {
        (thumbnail ? thumbnailTrashPrefix : "") + file.lastPathComponent
    }

    /// The entries of the trash (names that are not of this form are left alone).
    private func trashEntries() -> [TrashEntry] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: trash.path)) ?? []
        return names.compactMap { name in
            guard let mark = name.lastIndex(of: "~"), let milliseconds = Int64(name[name.index(after: mark)...]) else { return nil }
            let stem = String(name[..<mark])
            let sha = String(stem.dropFirst(stem.hasPrefix(Self.thumbnailTrashPrefix) ? Self.thumbnailTrashPrefix.count : 0)
                .prefix { $0 != "." })
            guard sha.count == 64, sha.allSatisfy(\.isHexDigit) else { return nil }
            return TrashEntry(name: name, stem: stem, sha: sha, trashedAt: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
        }
    }

    /// The trashed copies of the library file whose trash names start with `stem`.
    private func trashedCopies(stem: String) -> [TrashEntry] {
        trashEntries().filter { $0.stem == stem }
    }

    /// Where a trashed file belongs in the library.
    private func libraryURL(ofTrashEntry entry: TrashEntry) -> URL {
        if entry.stem.hasPrefix(Self.thumbnailTrashPrefix) { return thumbnailURL(sha: entry.sha) }
        return root.appendingPathComponent(String(entry.sha.prefix(2)), isDirectory: true).appendingPathComponent(entry.stem)
    }

    /// Renames `file` into the trash under a name that carries `now`. When it is not in place but waits in the trash
    /// already (it was used again from there), its trashed copies are dated `now` instead, so they too wait a whole
    /// ``trashAge`` from this release.
    private func moveToTrash(_ file: URL, thumbnail: Bool, now: Date) {
        let stem = Self.trashStem(of: file, thumbnail: thumbnail)
        let target = trash.appendingPathComponent(stem + "~\(Int64((now.timeIntervalSince1970 * 1000).rounded()))")
        guard FileManager.default.fileExists(atPath: file.path) else {
            for entry in trashedCopies(stem: stem) { _ = rename(trash.appendingPathComponent(entry.name).path, target.path) }
            return
        }
        do {
            try FileManager.default.createDirectory(at: trash, withIntermediateDirectories: true)
        } catch {
            return
        }
        _ = rename(file.path, target.path)
    }

    /// `file` when it is in place, else its newest copy in the trash, else `file` (which does not exist).
    private func placedOrTrashed(_ file: URL, thumbnail: Bool) -> URL {
        guard !FileManager.default.fileExists(atPath: file.path) else { return file }
        let copies = trashedCopies(stem: Self.trashStem(of: file, thumbnail: thumbnail))
        guard let newest = copies.max(by: { $0.trashedAt < $1.trashedAt }) else { return file }
        return trash.appendingPathComponent(newest.name)
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
        ImageFormat(mediaType: mediaType)?.fileExtension ?? "bin"
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
