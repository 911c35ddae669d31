import Foundation
import PlantGuideCore
import Synchronization

/// Identifications made recently, kept in memory so the results page can show the photos and "This is my
/// plant" can store them without uploading them again. Bounded by count and bytes; oldest go first. They are
/// temporary by design: a restart forgets them (the answer itself is kept when a plant is saved).
final class RecentUploads: Sendable {
    struct Upload: Sendable {
        /// One sent photo and what it shows.
        struct Photo: Sendable {
            var data: Data
            var kind: ImageKind
            var organ: PlantOrgan
        }

        var id: String
        var photos: [Photo]
        var outcome: IdentifyOutcome
        var sessionID: String
        /// The identification filed in the re-check queue for this answer, if it was queued.
        var recheckIdentificationID: Int64? = nil

        var bytes: Int { photos.reduce(0) { $0 + $1.data.count } }
    }

    private let maximumCount: Int
    private let maximumBytes: Int
    private let uploads = Mutex<[Upload]>([])

    init(maximumCount: Int = 32, maximumBytes: Int = 128 * 1_048_576) {
        self.maximumCount = maximumCount
        self.maximumBytes = maximumBytes
    }

    func add(_ upload: Upload) {
        uploads.withLock { list in
            list.append(upload)
            var bytes = list.reduce(0) { $0 + $1.bytes }
            while list.count > maximumCount || (bytes > maximumBytes && list.count > 1) {
                bytes -= list.removeFirst().bytes
            }
        }
    }

    /// The upload with this id, only for the session that made it.
    func upload(id: String, sessionID: String) -> Upload? {
        uploads.withLock { list in list.first { $0.id == id && $0.sessionID == sessionID } }
    }
}
