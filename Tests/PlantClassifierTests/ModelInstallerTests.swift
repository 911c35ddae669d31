import Crypto
import Foundation
import PlantGuideCore
import PlantGuideTestSupport
import Testing
@testable import PlantClassifier

/// Installs from the official record and from a mirror, against loopback servers that play Zenodo: published checksums,
/// wrong files, redirects, interrupted and concurrent downloads.
@Suite struct ModelInstallerTests {
    let resnet18 = try! Data(contentsOf: FixtureModels.url("tiny-resnet18.pth"))
    static let filePath = "/records/4726653/files/resnet18_weights_best_acc.tar?download=1"
    static let recordPath = "/api/records/4726653"

    /// A data directory of its own.
    private func temporaryStore() -> ModelStore {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("installer-\(UUID().uuidString)")
        return ModelStore(dataDirectory: DataDirectory(url: folder))
    }

    private func remove(_ store: ModelStore) {
        try? FileManager.default.removeItem(at: store.dataDirectory.url)
    }

    private static func md5(_ data: Data) -> String {
        Insecure.MD5.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }

    /// Zenodo's records-API form: `"files": [{"key", "size", "checksum"}]`.
    private static func record(name: String = "resnet18_weights_best_acc.tar", size: Int, md5: String) -> Data {
        let json: [String: Any] = ["id": 4726653, "files": [["key": name, "size": size, "checksum": "md5:\(md5)"]]]
        return try! JSONSerialization.data(withJSONObject: json)
    }

    private func downloadsLeft(_ store: ModelStore) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: store.downloads.path)) ?? []).filter { !$0.hasSuffix(".lock") }
    }

    @Test func theOfficialFileIsCheckedAgainstTheRecordAndBecomesTheDefault() async throws {
        let server = try LoopbackFileServer(files: [
            Self.filePath: resnet18, Self.recordPath: Self.record(size: resnet18.count, md5: Self.md5(resnet18)),
        ])
        defer { server.stop() }
        let store = temporaryStore()
        defer { remove(store) }
        let source = try ModelSource(mirror: nil, zenodo: server.url(""))
        #expect(source.isOfficial)

        let events = EventLog()
        let report = try await ModelInstaller(store: store, source: source).install(architecture: .resnet18) { events.append($0) }
        #expect(report.checksum == .matches(md5: Self.md5(resnet18)))
        #expect(store.defaultModel() == report.model)
        #expect(try ModelFile.manifest(at: report.model).classes == 1081)
        #expect(try ModelFile.manifest(at: report.model).source == server.url(Self.filePath).absoluteString)
        #expect(events.received.last == Int64(resnet18.count))
        #expect(events.sawChecking && events.sawImporting)
        #expect(downloadsLeft(store).isEmpty)
        #expect(store.installProblem() == nil)
        #expect(Set(server.requests.map(\.path)) == [Self.recordPath, Self.filePath])
    }

    @Test func aFileThatDiffersFromTheRecordIsRefusedAndRemoved() async throws {
        var other = resnet18
        other[other.count - 100] ^= 0xFF
        let server = try LoopbackFileServer(files: [
            Self.filePath: other, Self.recordPath: Self.record(size: resnet18.count, md5: Self.md5(resnet18)),
        ])
        defer { server.stop() }
        let store = temporaryStore()
        defer { remove(store) }
        let installer = ModelInstaller(store: store, source: try ModelSource(mirror: nil, zenodo: server.url("")))
        do {
            _ = try await installer.install(architecture: .resnet18)
            Issue.record("a file whose MD5 differs from the record's must be refused")
        } catch let error as ClassifierError {
            #expect(error.description.contains("MD5") && error.description.contains(Self.md5(resnet18)))
        }
        #expect(store.defaultModel() == nil)
        #expect(downloadsLeft(store).isEmpty)
        #expect(store.installProblem()?.reason.contains("MD5") == true)
    }

    @Test func aWrongLengthOrAHugeFileIsRefusedBeforeItsBytes() async throws {
        let server = try LoopbackFileServer(
            files: [
                Self.filePath: resnet18, Self.recordPath: Self.record(size: resnet18.count + 1, md5: Self.md5(resnet18)),
                "/mirror/resnet18_weights_best_acc.tar": resnet18,
            ],
            options: .init(announcedLengths: ["/mirror/resnet18_weights_best_acc.tar": 10_000_000_000])
        )
        defer { server.stop() }
        let store = temporaryStore()
        defer { remove(store) }
        let official = ModelInstaller(store: store, source: try ModelSource(mirror: nil, zenodo: server.url("")))
        await #expect(throws: ClassifierError.self) { try await official.install(architecture: .resnet18) }
        #expect(store.installProblem()?.reason.contains("publishes \(resnet18.count + 1)") == true)

        let mirror = ModelInstaller(store: store, source: try ModelSource(mirror: server.url("/mirror/"), zenodo: server.url("")))
        do {
            _ = try await mirror.install(architecture: .resnet18)
            Issue.record("a 10 GB answer must be refused")
        } catch let error as ClassifierError {
            #expect(error.description.contains("9.3 GiB") && error.description.contains("not downloaded"))
        }
        #expect(store.defaultModel() == nil)
        let partial = store.downloads.appendingPathComponent("resnet18_weights_best_acc.tar.part")
        #expect(!FileManager.default.fileExists(atPath: partial.path))
    }

    @Test func aMirrorsOtherWeightsAreShownNotEnforced() async throws {
        let server = try LoopbackFileServer(files: [
            "/mirror/resnet18_weights_best_acc.tar": resnet18, Self.recordPath: Self.record(size: 99, md5: String(repeating: "ab", count: 16)),
        ])
        defer { server.stop() }
        let store = temporaryStore()
        defer { remove(store) }
        let source = try ModelSource(mirror: server.url("/mirror"), zenodo: server.url(""))
        #expect(!source.isOfficial)
        let report = try await ModelInstaller(store: store, source: source).install(architecture: .resnet18)
        #expect(report.checksum == .differs(published: String(repeating: "ab", count: 16), actual: Self.md5(resnet18)))
        #expect(store.defaultModel() == report.model)
        #expect(report.url == server.url("/mirror/resnet18_weights_best_acc.tar"))
    }

    @Test func aMirrorInstallsWhenTheRecordCannotBeRead() async throws {
        let server = try LoopbackFileServer(files: ["/m/resnet18_weights_best_acc.tar": resnet18])
        defer { server.stop() }
        let offline = try RefusingPort()
        defer { offline.release() }
        let store = temporaryStore()
        defer { remove(store) }
        let source = try ModelSource(mirror: server.url("/m/"), zenodo: offline.url)
        let report = try await ModelInstaller(store: store, source: source, recordTimeout: .seconds(5)).install(architecture: .resnet18)
        guard case .unpublished(let actual, let why) = report.checksum else {
            Issue.record("expected an unpublished checksum, got \(report.checksum)")
            return
        }
        #expect(actual == Self.md5(resnet18) && why.contains("could not be read"))
        #expect(store.defaultModel() == report.model)
    }

    @Test func aCheckpointWithOtherClassesOrAWebPageNeverBecomesTheDefault() async throws {
        let resnet34 = try Data(contentsOf: FixtureModels.url("tiny-resnet34.pth"))
        let server = try LoopbackFileServer(
            files: [
                "/m/resnet34_weights_best_acc.tar": resnet34,
                "/m/resnet18_weights_best_acc.tar": Data("<html><body>Please log in</body></html>".utf8),
            ],
            options: .init(contentTypes: ["/m/resnet18_weights_best_acc.tar": "text/html; charset=utf-8"])
        )
        defer { server.stop() }
        let offline = try RefusingPort()
        defer { offline.release() }
        let store = temporaryStore()
        defer { remove(store) }
        let installer = ModelInstaller(store: store, source: try ModelSource(mirror: server.url("/m/"), zenodo: offline.url), recordTimeout: .seconds(5))
        do {
            _ = try await installer.install(architecture: .resnet34)
            Issue.record("a 10-class checkpoint must be refused for the 1,081 PlantNet-300K classes")
        } catch let error as ClassifierError {
            #expect(error.description.contains("10"), "\(error)")
        }
        do {
            _ = try await installer.install(architecture: .resnet18)
            Issue.record("a web page must be refused")
        } catch let error as ClassifierError {
            #expect(error.description.contains("web page"), "\(error)")
        }
        #expect(store.defaultModel() == nil)
        #expect(downloadsLeft(store).isEmpty)
        let models = (try? FileManager.default.contentsOfDirectory(atPath: store.folder.path)) ?? []
        #expect(!models.contains { $0.hasSuffix(".pgmodel") })
    }

    @Test func redirectsAreFollowedOnlyToHTTPS() async throws {
        let server = try LoopbackFileServer(
            files: ["/real/resnet18_weights_best_acc.tar": resnet18],
            options: .init(redirects: ["/m/resnet18_weights_best_acc.tar": "http://127.0.0.1:1/real/resnet18_weights_best_acc.tar"])
        )
        defer { server.stop() }
        let store = temporaryStore()
        defer { remove(store) }
        do {
            try await ModelDownloader(timeout: 10).download(
                from: server.url("/m/resnet18_weights_best_acc.tar"), to: store.downloads.appendingPathComponent("x.tar")
            )
            Issue.record("a redirect to plain http must be refused")
        } catch let error as ClassifierError {
            #expect(error.description.contains("only https targets"), "\(error)")
        }
        #expect(throws: ClassifierError.self) { try ModelSource(mirror: URL(string: "http://example.org/weights/")!) }
        #expect(throws: ClassifierError.self) { try ModelSource(mirror: URL(string: "ftp://example.org/weights/")!) }
        #expect(throws: Never.self) { _ = try ModelSource(mirror: URL(string: "https://example.org/weights/")!) }
        #expect(throws: ClassifierError.self) { try ModelSource.fromEnvironment([ModelSource.mirrorVariable: "not a url"]) }
        #expect(try ModelSource.fromEnvironment([:]).url(for: .resnet50).absoluteString
            == "https://zenodo.org/records/4726653/files/resnet50_weights_best_acc.tar?download=1")
    }

    @Test func anInterruptedInstallResumesAndLeavesNoHalfModel() async throws {
        let server = try LoopbackFileServer(
            files: [Self.filePath: resnet18, Self.recordPath: Self.record(size: resnet18.count, md5: Self.md5(resnet18))],
            dropConnections: 2, cutAfter: 250_000
        )
        defer { server.stop() }
        let store = temporaryStore()
        defer { remove(store) }
        let installer = ModelInstaller(store: store, source: try ModelSource(mirror: nil, zenodo: server.url("")))
        // The first two answers are cut: the record's (which is shorter than the cut, so whole) and the file's.
        await #expect(throws: ClassifierError.self) { try await installer.install(architecture: .resnet18) }
        #expect(store.defaultModel() == nil)
        #expect(downloadsLeft(store) == ["resnet18_weights_best_acc.tar.part"])
        let report = try await installer.install(architecture: .resnet18)
        #expect(report.checksum == .matches(md5: Self.md5(resnet18)))
        #expect(server.requests.filter { $0.path == Self.filePath }.map(\.range) == [nil, "bytes=250000-"])
        #expect(store.defaultModel() == report.model)
    }

    @Test func twoInstallsAtOnceShareOneDownload() async throws {
        let server = try LoopbackFileServer(
            files: [Self.filePath: resnet18, Self.recordPath: Self.record(size: resnet18.count, md5: Self.md5(resnet18))],
            options: .init(pauseAfter: 16_384)
        )
        defer { server.stop() }
        let store = temporaryStore()
        defer { remove(store) }
        let installer = ModelInstaller(store: store, source: try ModelSource(mirror: nil, zenodo: server.url("")))
        let first = Task { try await installer.install(architecture: .resnet18) }
        // The second starts once the first holds the lock and its download is held midway by the server.
        for _ in 0..<500 where !server.isPaused { try await Task.sleep(for: .milliseconds(20)) }
        #expect(server.isPaused)
        let waits = EventLog()
        let second = Task { try await installer.install(architecture: .resnet18) { waits.append($0) } }
        for _ in 0..<500 where waits.waited == 0 { try await Task.sleep(for: .milliseconds(20)) }
        server.proceed()
        let secondReport = try await second.value
        let firstReport = try await first.value
        #expect(secondReport.checksum == .installedByAnother)
        #expect(waits.waited > 0)
        #expect(secondReport.model == firstReport.model && store.defaultModel() == firstReport.model)
        #expect(server.requests.filter { $0.path == Self.filePath }.count == 1)
    }

    @Test func progressAveragesTheSpeedFromThisRunsFirstBytes() {
        var progress = DownloadProgress()
        let start = ContinuousClock.now
        progress.update(received: 10 << 20, total: 110 << 20, now: start)  // resumed: 10 MiB were there already
        #expect(progress.bytesPerSecond == nil && progress.summary() == "10.0 of 110.0 MiB (9 %)")
        progress.update(received: 30 << 20, total: 110 << 20, now: start + .seconds(2))
        #expect(progress.bytesPerSecond == Double(10 << 20))
        #expect(progress.secondsLeft == 8 && progress.percent == 27)
        #expect(progress.summary() == "30.0 of 110.0 MiB (27 %), 10.0 MiB/s, about 8 s left")
        #expect(progress.summary(percentage: false) == "30.0 of 110.0 MiB, 10.0 MiB/s, about 8 s left")
        progress.update(received: 31 << 20, total: nil, now: start + .seconds(130))
        #expect(progress.secondsLeft == nil && progress.summary().hasPrefix("31.0 MiB, 0.2 MiB/s"))
        var slow = DownloadProgress()
        slow.update(received: 0, total: 100 << 20, now: start)
        slow.update(received: 1 << 20, total: 100 << 20, now: start + .seconds(10))
        #expect(slow.summary().hasSuffix("about 16 min 30 s left"))
        slow.finish()
        #expect(slow.secondsLeft == nil)
    }

    @Test func theRecordIsReadInBothOfZenodosForms() throws {
        let export = Data("""
            {"files": {"count": 1, "entries": {"resnet50_weights_best_acc.tar": {"checksum": "md5:0123456789ABCDEF0123456789abcdef", "size": 96000000}}}}
            """.utf8)
        let files = try PublishedFile.parseRecord(export)
        #expect(files["resnet50_weights_best_acc.tar"] == PublishedFile(size: 96_000_000, md5: "0123456789abcdef0123456789abcdef"))
        let api = Self.record(name: "resnet18_weights_best_acc.tar", size: 5, md5: "not-a-checksum")
        #expect(try PublishedFile.parseRecord(api)["resnet18_weights_best_acc.tar"] == PublishedFile(size: 5, md5: nil))
        #expect(throws: ClassifierError.self) { try PublishedFile.parseRecord(Data("<html>".utf8)) }
    }
}

/// What an install reported, gathered from its callbacks.
final class EventLog: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [ModelInstaller.Event] = []

    func append(_ event: ModelInstaller.Event) { lock.withLock { events.append(event) } }

    var received: [Int64] {
        lock.withLock { events.compactMap { if case .downloading(let received, _) = $0 { received } else { nil } } }
    }
    var waited: Int { lock.withLock { events.filter { if case .waitingForAnother = $0 { true } else { false } }.count } }
    var sawChecking: Bool { lock.withLock { events.contains { if case .checking = $0 { true } else { false } } } }
    var sawImporting: Bool { lock.withLock { events.contains { if case .importing = $0 { true } else { false } } } }
}
