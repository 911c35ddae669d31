import Foundation
import PlantGuideCore
import Testing
@testable import PlantStore

@Suite struct PhotoFileTests {
    /// Every file under the photos folder, relative to it.
    private func files(in library: PhotoLibrary) throws -> [String] {
        let root = library.root.path
        return try FileManager.default.subpathsOfDirectory(atPath: root).filter { path in
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: root + "/" + path, isDirectory: &isFolder) && !isFolder.boolValue
        }.sorted()
    }

    /// Bytes that make several write chunks, with a PNG header so the media type is known.
    private func photoBytes(count: Int, seed: UInt8) -> Data {
        Data([0x89, 0x50, 0x4E, 0x47]) + Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) })
    }

    @Test func eightWritersOfTheSamePhotoLeaveOneCompleteFile() async throws {
        let home = try TemporaryHome()
        defer { home.cleanUp() }
        let encoder = PhotoEncoder { data in
            EncodedPhoto(data: data, mediaType: "image/png", width: 1, height: 1, thumbnail: Data(data.prefix(100_000)))
        }
        let library = PhotoLibrary(directory: home.directory, encoder: encoder)
        let original = photoBytes(count: 3 * PhotoFile.chunkSize + 12_345, seed: 7)
        let stored = try await withThrowingTaskGroup(of: StoredPhoto.self) { group in
            for _ in 0..<8 {
                group.addTask { try library.store(original, now: Date(timeIntervalSince1970: 1_800_000_000)) }
            }
            return try await group.reduce(into: [StoredPhoto]()) { $0.append($1) }
        }
        #expect(stored.count == 8)
        #expect(Set(stored.map(\.sha256)) == [sha256Hex(original)])
        let photo = try #require(stored.first)
        let thumbnail = try #require(library.thumbnailURL(of: photo))
        #expect(try files(in: library) == [
            "\(photo.sha256.prefix(2))/\(photo.sha256).png",
            "thumbnails/\(thumbnail.deletingLastPathComponent().lastPathComponent)/\(thumbnail.lastPathComponent)",
        ].sorted())
        #expect(try Data(contentsOf: library.url(of: photo)) == original)
        #expect(try Data(contentsOf: thumbnail) == original.prefix(100_000))
    }

    @Test func aWriteThatFailsMidwayLeavesNoPartialAndTheOldFileIntact() throws {
        let home = try TemporaryHome()
        defer { home.cleanUp() }
        var library = PhotoLibrary(directory: home.directory, encoder: .storingOriginal)
        let data = photoBytes(count: 2 * PhotoFile.chunkSize + 99, seed: 3)
        let photo = StoredPhoto(
            sha256: sha256Hex(data), originalSHA256: sha256Hex(data), mediaType: "image/png", byteCount: data.count,
            width: nil, height: nil, thumbnailSHA256: nil, createdAt: Date()
        )
        // An earlier, damaged copy (too short) is at the final name; the new write fails after its first chunk.
        let final = library.url(of: photo)
        try FileManager.default.createDirectory(at: final.deletingLastPathComponent(), withIntermediateDirectories: true)
        let damaged = Data(data.prefix(1000))
        try damaged.write(to: final)
        let attempts = Counter()
        library.writeFault = { written in
            attempts.add()
            return written >= PhotoFile.chunkSize ? EIO : nil
        }
        #expect(throws: StoreError.self) { try library.restore(photo, data: data, thumbnail: nil) }
        #expect(attempts.value == 2)
        #expect(try Data(contentsOf: final) == damaged)
        #expect(try files(in: library) == ["\(photo.sha256.prefix(2))/\(photo.sha256).png"])
        // The same failure while storing a new photo leaves nothing at all.
        #expect(throws: StoreError.self) { try library.store(photoBytes(count: PhotoFile.chunkSize + 1, seed: 9), now: Date()) }
        #expect(try files(in: library) == ["\(photo.sha256.prefix(2))/\(photo.sha256).png"])
        // Without the fault the damaged copy is replaced by the complete one.
        library.writeFault = nil
        try library.restore(photo, data: data, thumbnail: nil)
        #expect(try Data(contentsOf: final) == data)
        #expect(try files(in: library) == ["\(photo.sha256.prefix(2))/\(photo.sha256).png"])
    }

    @Test func aFolderThatCannotBeWrittenGivesAClearErrorAndNoFile() throws {
        let home = try TemporaryHome()
        defer { home.cleanUp() }
        let library = PhotoLibrary(directory: home.directory, encoder: .storingOriginal)
        // A plain file where the shard folder should be: nobody, not even root, can create files under it.
        let data = photoBytes(count: 10, seed: 1)
        let shard = library.root.appendingPathComponent(String(sha256Hex(data).prefix(2)))
        try FileManager.default.createDirectory(at: library.root, withIntermediateDirectories: true)
        try Data("not a folder".utf8).write(to: shard)
        do {
            _ = try library.store(data, now: Date())
            Issue.record("storing under a file succeeded")
        } catch {
            guard case .file(let path, let reason) = error else { throw error }
            #expect(path.hasPrefix(shard.path))
            #expect(reason.contains("cannot write the photo"))
        }
        #expect(try files(in: library) == [shard.lastPathComponent])
    }

    @Test func partialFilesADayOldAreSweptYoungerOnesKept() throws {
        let home = try TemporaryHome()
        defer { home.cleanUp() }
        let library = PhotoLibrary(directory: home.directory, encoder: .storingOriginal)
        let now = Date()
        let shard = library.root.appendingPathComponent("ab")
        let thumbnails = library.root.appendingPathComponent("thumbnails/cd")
        for folder in [shard, thumbnails] { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        func make(_ folder: URL, _ name: String, age: TimeInterval) throws -> URL {
            let url = folder.appendingPathComponent(name)
            try Data([1, 2, 3]).write(to: url)
            try FileManager.default.setAttributes([.modificationDate: now.addingTimeInterval(-age)], ofItemAtPath: url.path)
            return url
        }
        let old = try make(shard, ".ab12.\(UUID().uuidString).partial", age: 2 * 86_400)
        let oldThumbnail = try make(thumbnails, ".cd34.\(UUID().uuidString).partial", age: 86_401)
        let young = try make(shard, ".ab56.\(UUID().uuidString).partial", age: 3_600)
        let photo = try make(shard, "ab78.jpg", age: 5 * 86_400)
        #expect(library.removeLeftoverPartialFiles(now: now) == 2)
        #expect(!FileManager.default.fileExists(atPath: old.path))
        #expect(!FileManager.default.fileExists(atPath: oldThumbnail.path))
        #expect(FileManager.default.fileExists(atPath: young.path))
        #expect(FileManager.default.fileExists(atPath: photo.path))
        // Writing a photo into a folder sweeps that folder too.
        let stale = try make(shard, ".ab90.\(UUID().uuidString).partial", age: 3 * 86_400)
        let data = try #require((0..<100_000).lazy.map { Data([0x89, 0x50, 0x4E, 0x47]) + Data("\($0)".utf8) }
            .first { sha256Hex($0).hasPrefix("ab") })
        _ = try library.store(data, now: now)
        #expect(!FileManager.default.fileExists(atPath: stale.path))
        #expect(FileManager.default.fileExists(atPath: young.path))
    }
}

/// A count that `@Sendable` closures can raise.
private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func add() { lock.withLock { count += 1 } }
}
