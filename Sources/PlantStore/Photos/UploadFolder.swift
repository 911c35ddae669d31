import Foundation
import PlantGuideCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The photos of recent identifications, as files named by their SHA-256 in the data directory's `uploads` folder,
/// which server replicas share: any replica reads a photo another one received. Files are written with
/// ``PhotoFile``'s partial-and-rename, so a reader never sees half of one and two writers of the same photo agree.
///
/// The store's recent uploads name the files (``RecentUploadRow/photos``); a purge reports which no upload names any
/// more, and ``remove(_:unchangedFor:)`` deletes those not stored again meanwhile (storing a photo that is there
/// already touches it), so a replica saving an upload while another purges never loses the file it names.
///
/// Those ages are read by one clock, the one that stamps the folder's files (``now()``): a touch asks the file system
/// for its own time, as a new file gets, and the folder takes its cutoffs from that time too. On a network file system that is
/// the file server's clock, so replicas whose own clocks disagree by more than the grace still agree on a file's age.
public struct UploadFolder: Sendable {
    /// The folder.
    public let url: URL
    private let clock: (@Sendable () -> Date)?

    /// The `uploads` folder of a data directory, its files' ages read by the file system's clock, or by `now` when
    /// given (tests that move time on).
    public init(directory: DataDirectory, now: (@Sendable () -> Date)? = nil) {
        url = directory.appending("uploads")
        clock = now
    }

    /// The time by the clock that stamps this folder's files: a marker file (`.clock`) is touched and its time read
    /// back. This process's clock when the folder cannot be written (then nothing is stored in it either).
    public func now() -> Date {
        if let clock { return clock() }
        let marker = url.appendingPathComponent(".clock").path
        if !Self.touch(marker) {
            // The first time: the folder and the marker are made, which stamps the marker with the file system's time.
            try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            guard FileManager.default.createFile(atPath: marker, contents: nil) else { return Date() }
        }
        return (try? FileManager.default.attributesOfItem(atPath: marker))?[.modificationDate] as? Date ?? Date()
    }

    /// Sets a file's times to the file system's now (on a network file system, the server's time); `false` if it failed.
    @discardableResult
    private static func touch(_ path: String) -> Bool {
        utimensat(AT_FDCWD, path, nil, 0) == 0
    }

    /// The file of the photo with this SHA-256 (64 lowercase hexadecimal digits).
    public func file(sha256: String) -> URL { url.appendingPathComponent(sha256) }

    /// Stores a photo (unless a complete copy is there, which is touched instead) and returns its SHA-256.
    public func store(_ data: Data) throws(StoreError) -> String {
        let sha = sha256Hex(data)
        let destination = file(sha256: sha)
        if PhotoFile.isComplete(destination, byteCount: data.count) {
            // A purge on another replica deletes only files unchanged for a while: this one is in use again.
            Self.touch(destination.path)
            return sha
        }
        do throws(PhotoFile.Failure) {
            try PhotoFile.write(data, to: destination, sha: sha)
        } catch {
            throw .file(path: destination.path, reason: "cannot write the uploaded photo (\(error))")
        }
        PhotoFile.removeStalePartials(in: url, now: Date())
        return sha
    }

    /// The photo with this SHA-256, when its file is there and whole.
    public func data(sha256: String) -> Data? {
        guard sha256.utf8.count == 64, sha256.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }),
              let data = try? Data(contentsOf: file(sha256: sha256)), sha256Hex(data) == sha256
        else { return nil }
        return data
    }

    /// Deletes the files of these photos that were not written or touched for `age` by the folder's clock (``now()``);
    /// returns how many went.
    @discardableResult
    public func remove(_ hashes: [String], unchangedFor age: TimeInterval) -> Int {
        let hashes = hashes.filter { $0.utf8.count == 64 && !$0.contains("/") }
        guard !hashes.isEmpty else { return 0 }
        let cutoff = now().addingTimeInterval(-age)
        var removed = 0
        for sha in hashes {
            let path = file(sha256: sha).path
            guard let changed = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date,
                  changed <= cutoff
            else { continue }
            if (try? FileManager.default.removeItem(atPath: path)) != nil { removed += 1 }
        }
        return removed
    }

    /// Deletes every photo file not written or touched for `age` by the folder's clock (and day-old partial files);
    /// returns how many went. With `age` longer than the uploads' lifetime, no unexpired upload names any of them
    /// (storing touches the file), so this catches what a purge could not delete, e.g. after a crash.
    @discardableResult
    public func sweep(unchangedFor age: TimeInterval) -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
        let stale = names.filter { $0.utf8.count == 64 && !$0.hasPrefix(".") }
        PhotoFile.removeStalePartials(in: url, now: Date())
        return remove(stale, unchangedFor: age)
    }
}
