import Foundation
import PlantGuideTestSupport
import Testing
@testable import PlantClassifier

@Suite struct DownloaderTests {
    let payload = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })

    @Test func interruptedDownloadResumesWithARangeRequest() async throws {
        let server = try LoopbackFileServer(files: ["/weights.tar": payload], dropConnections: 1, cutAfter: 120_000)
        defer { server.stop() }
        let destination = FixtureModels.temporaryFile("tar")
        defer { FixtureModels.remove(destination) }
        let downloader = ModelDownloader(timeout: 10)

        await #expect(throws: ClassifierError.self) {
            try await downloader.download(from: server.url("/weights.tar"), to: destination)
        }
        #expect(!FileManager.default.fileExists(atPath: destination.path))
        let partial = try Data(contentsOf: destination.appendingPathExtension("part"))
        #expect(partial.count == 120_000)

        let seen = ProgressLog()
        try await downloader.download(from: server.url("/weights.tar"), to: destination) { received, total in
            seen.append(received, total)
        }
        #expect(try Data(contentsOf: destination) == payload)
        #expect(server.requests.map(\.range) == [nil, "bytes=120000-"])
        #expect(seen.values.first?.0 == 120_000)
        #expect(seen.values.last?.0 == Int64(payload.count))
        #expect(seen.values.allSatisfy { $0.1 == Int64(300_000) })
        #expect(!FileManager.default.fileExists(atPath: destination.appendingPathExtension("part").path))
    }

    @Test func missingFileIsAClearError() async throws {
        let server = try LoopbackFileServer(files: [:])
        defer { server.stop() }
        let destination = FixtureModels.temporaryFile("tar")
        do {
            try await ModelDownloader(timeout: 10).download(from: server.url("/nothing.tar"), to: destination)
            Issue.record("a 404 must fail")
        } catch let error as ClassifierError {
            #expect(error.description.contains("HTTP 404"))
        }
        #expect(!FileManager.default.fileExists(atPath: destination.path))
    }

    @Test func unreachableServerIsAClearError() async throws {
        let offline = try RefusingPort()
        defer { offline.release() }
        let url = offline.url.appendingPathComponent("weights.tar")
        let destination = FixtureModels.temporaryFile("tar")
        do {
            try await ModelDownloader(timeout: 5).download(from: url, to: destination)
            Issue.record("a closed port must fail")
        } catch let error as ClassifierError {
            #expect(error.description.contains("127.0.0.1"))
        }
    }
}

/// Collects progress callbacks, which arrive on the download's queue.
final class ProgressLog: @unchecked Sendable {
    private let lock = NSLock()
    private var log: [(Int64, Int64?)] = []

    func append(_ received: Int64, _ total: Int64?) { lock.withLock { log.append((received, total)) } }
    var values: [(Int64, Int64?)] { lock.withLock { log } }
}
