import Foundation
import PlantGuideCore
import PlantNetAPI
import PlantStore
import Synchronization

/// Identifications made recently, so the results page can show the photos and "This is my plant" can store them
/// without uploading them again. They are temporary by design (the answer itself is kept when a plant is saved).
///
/// With the collection's store they are shared by every replica: the row (photos by SHA-256, the outcome as JSON, the
/// SHA-256 of the session id) is in the store and the photos are files in the data directory's `uploads` folder, so a
/// results page or a save may reach another replica than the identification did. Each session keeps its newest
/// ``defaultKeepPerSession`` for ``defaultLifetime`` (2 hours); the refresh round (after requests, once a minute at most) forgets expired ones and deletes
/// the photo files no upload names any more. Without a store they are kept in this process's memory, bounded by count
/// and bytes (oldest go first), and a restart forgets them.
final class RecentUploads: Sendable {
    struct Upload: Sendable {
        /// One sent photo and what it shows.
        struct Photo: Sendable {
            var data: Data
            var kind: ImageFormat
            var organ: PlantNetOrgan
        }

        var id: String
        var photos: [Photo]
        var outcome: IdentifyOutcome
        var sessionID: String
        /// The identification filed in the re-check queue for this answer, if it was queued.
        var recheckIdentificationID: Int64? = nil

        var bytes: Int { photos.reduce(0) { $0 + $1.data.count } }
    }

    /// How long an upload is kept in the store.
    static let defaultLifetime: TimeInterval = 2 * 3600
    /// How many uploads one session keeps in the store (the in-memory limit of 32 was per process).
    static let defaultKeepPerSession = 16
    /// How long a photo file stays after its last upload went, for a replica that is saving an upload naming it.
    static let fileGrace: TimeInterval = 60

    private struct Shared: Sendable {
        var store: any ServerStateStore
        var folder: UploadFolder
        var lifetime: TimeInterval
        var keepPerSession: Int
        var now: @Sendable () -> Date
        var log: @Sendable (String) -> Void
    }

    private let maximumCount: Int
    private let maximumBytes: Int
    private let uploads = Mutex<[Upload]>([])
    private let shared: Shared?

    /// Uploads kept in memory.
    init(maximumCount: Int = 32, maximumBytes: Int = 128 * 1_048_576) {
        self.maximumCount = maximumCount
        self.maximumBytes = maximumBytes
        shared = nil
    }

    /// Uploads kept in `store`, their photos in `folder`.
    init(
        store: any ServerStateStore, folder: UploadFolder,
        lifetime: TimeInterval = defaultLifetime, keepPerSession: Int = defaultKeepPerSession,
        now: @escaping @Sendable () -> Date, log: @escaping @Sendable (String) -> Void
    ) {
        maximumCount = 0
        maximumBytes = 0
        shared = Shared(
            store: store, folder: folder, lifetime: lifetime, keepPerSession: keepPerSession, now: now, log: log
        )
    }

    /// Keeps an upload.
    /// - Throws: ``ServerError/failed(_:)`` when the store or the photo files cannot be written.
    func add(_ upload: Upload) async throws {
        guard let shared else {
            uploads.withLock { list in
                list.append(upload)
                var bytes = list.reduce(0) { $0 + $1.bytes }
                while list.count > maximumCount || (bytes > maximumBytes && list.count > 1) {
                    bytes -= list.removeFirst().bytes
                }
            }
            return
        }
        do {
            // An upload is its household's: only its session reads it back, and the household's scope goes with it.
            let household = try HouseholdScope.resolve(default: nil, operation: "keep the identified photos").household
            // The files first: a row never names a photo that is not there.
            var photos: [RecentUploadPhoto] = []
            for photo in upload.photos {
                let sha = try shared.folder.store(photo.data)
                photos.append(RecentUploadPhoto(sha256: sha, kind: photo.kind.rawValue, organ: photo.organ.rawValue))
            }
            let time = shared.now()
            let outcome = String(decoding: try Self.encoder.encode(upload.outcome), as: UTF8.self)
            let forgotten = try await shared.store.saveUpload(
                RecentUploadRow(
                    id: upload.id, householdId: household, sessionHash: Self.sessionHash(upload.sessionID), photos: photos,
                    outcome: outcome, recheckIdentificationId: upload.recheckIdentificationID, createdAt: time,
                    expiresAt: time.addingTimeInterval(shared.lifetime)
                ),
                keepPerSession: shared.keepPerSession
            )
            // Aged by the clock that stamps the files (the file server's on a shared folder), not this replica's.
            shared.folder.remove(forgotten, unchangedFor: Self.fileGrace)
        } catch {
            throw ServerError.failed("The identified photos could not be kept: \(error)")
        }
    }

    /// The upload with this id, only for the session that made it.
    func upload(id: String, sessionID: String) async -> Upload? {
        guard let shared else {
            return uploads.withLock { list in list.first { $0.id == id && $0.sessionID == sessionID } }
        }
        let row: RecentUploadRow?
        do {
            let household = try HouseholdScope.resolve(default: nil, operation: "read a recent upload").household
            row = try await shared.store.upload(id: id, sessionHash: Self.sessionHash(sessionID), household: household, now: shared.now())
        } catch {
            shared.log("a recent upload could not be read: \(error)")
            return nil
        }
        guard let row, let outcome = try? Self.decoder.decode(IdentifyOutcome.self, from: Data(row.outcome.utf8)) else { return nil }
        var photos: [Upload.Photo] = []
        for photo in row.photos {
            guard let data = shared.folder.data(sha256: photo.sha256), let kind = ImageFormat(rawValue: photo.kind) else {
                shared.log("a photo of a recent upload is missing from \(shared.folder.url.path)")
                return nil
            }
            photos.append(Upload.Photo(data: data, kind: kind, organ: PlantNetOrgan(webValue: photo.organ) ?? .auto))
        }
        return Upload(id: row.id, photos: photos, outcome: outcome, sessionID: sessionID, recheckIdentificationID: row.recheckIdentificationId)
    }

    /// Forgets expired uploads in the store and deletes the photo files none names any more (also files a crash
    /// left); returns how many files went. Nothing to do for uploads in memory.
    @discardableResult
    func purge() async -> Int {
        guard let shared else { return 0 }
        let time = shared.now()
        var removed = 0
        do {
            let unnamed = try await shared.store.purgeUploads(now: time)
            removed += shared.folder.remove(unnamed, unchangedFor: Self.fileGrace)
        } catch {
            shared.log("expired uploads could not be forgotten: \(error)")
        }
        return removed + shared.folder.sweep(unchangedFor: shared.lifetime + Self.fileGrace)
    }

    /// Keeps photos by content in the shared folder for as long as an upload's (a later request names them by SHA-256:
    /// "Keep in the plant's history" after a diagnosis): their SHA-256s, in order, or `nil` when uploads are only in
    /// memory (without a store there is no plant to keep them with either) or the folder cannot be written.
    @discardableResult
    func keepFiles(_ photos: [Data]) -> [String]? {
        guard let shared else { return nil }
        do {
            return try photos.map { photo throws(StoreError) in try shared.folder.store(photo) }
        } catch {
            shared.log("photos could not be kept for a later save: \(error)")
            return nil
        }
    }

    /// A photo kept by ``keepFiles(_:)`` (or an upload's), by its SHA-256; `nil` once swept.
    func file(sha256: String) -> Data? {
        shared?.folder.data(sha256: sha256)
    }

    /// Whether a photo kept by ``keepFiles(_:)`` is still there, without reading it.
    func hasFile(sha256: String) -> Bool {
        guard let shared else { return false }
        return FileManager.default.fileExists(atPath: shared.folder.file(sha256: sha256).path)
    }

    /// The SHA-256 (hex) of a session id, as the store keeps it: the id itself never leaves the process.
    static func sessionHash(_ sessionID: String) -> String { sha256Hex(Data(sessionID.utf8)) }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()

    private static let decoder = JSONDecoder()
}
