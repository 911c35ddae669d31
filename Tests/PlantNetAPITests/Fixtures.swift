import Foundation
import PlantGuideTestSupport
import PlantNetAPI
import Synchronization

/// A fake "JPEG": bytes that differ per seed; the stub does not decode images.
func photo(_ seed: UInt8, size: Int = 2_000) -> Data {
    var data = Data([0xFF, 0xD8, 0xFF, 0xE0])
    data.append(contentsOf: (0..<size).map { UInt8(truncatingIfNeeded: Int($0) &* 31 &+ Int(seed)) })
    data.append(contentsOf: [0xFF, 0xD9])
    return data
}

func image(_ seed: UInt8, organ: PlantNetOrgan = .auto, perceptualHash: UInt64? = nil) -> PlantNetImage {
    PlantNetImage(
        jpeg: photo(seed), organ: organ, sha256: String(repeating: String(format: "%02x", seed), count: 32),
        perceptualHash: perceptualHash
    )
}

/// A new empty folder under the temporary directory.
func temporaryFolder() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("plantnet-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// Records the delays the client waited between retries, without waiting.
final class SleepRecorder: Sendable {
    private let delays = Mutex<[Duration]>([])
    var recorded: [Duration] { delays.withLock { $0 } }
    var sleep: @Sendable (Duration) async -> Void { { [self] delay in delays.withLock { $0.append(delay) } } }
}

/// Collects log lines.
final class LineRecorder: Sendable {
    private let storage = Mutex<[String]>([])
    var lines: [String] { storage.withLock { $0 } }
    var log: @Sendable (String) -> Void { { [self] line in storage.withLock { $0.append(line) } } }
}

func client(
    _ stub: PlantNetStub, key: String = "stub-key", timeout: Duration = .seconds(30), sleeper: SleepRecorder = SleepRecorder(),
    log: LineRecorder = LineRecorder(), now: @escaping @Sendable () -> Date = { Date() }
) -> PlantNetClient {
    PlantNetClient(
        configuration: PlantNetConfiguration(baseURL: stub.baseURL, apiKey: key, timeout: timeout),
        log: log.log, sleep: sleeper.sleep, now: now
    )
}

