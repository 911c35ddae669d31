import Foundation
import PlantGuideCore
import Synchronization

/// Photos identified recently, kept in memory so the results page can show the photo and "Save to
/// collection" can store it without uploading it again. Bounded by count and bytes; oldest go first.
final class RecentUploads: Sendable {
    struct Upload: Sendable {
        var id: String
        var photo: Data
        var kind: ImageKind
        var outcome: IdentifyOutcome
        var sessionID: String
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
            var bytes = list.reduce(0) { $0 + $1.photo.count }
            while list.count > maximumCount || (bytes > maximumBytes && list.count > 1) {
                bytes -= list.removeFirst().photo.count
            }
        }
    }

    /// The upload with this id, only for the session that made it.
    func upload(id: String, sessionID: String) -> Upload? {
        uploads.withLock { list in list.first { $0.id == id && $0.sessionID == sessionID } }
    }
}
