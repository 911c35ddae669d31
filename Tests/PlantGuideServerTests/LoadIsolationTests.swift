import Foundation
import Hummingbird
import HummingbirdTesting
import PlantGuideCore
import Synchronization
import Testing
@testable import PlantGuideServer

/// Heavy work must not stall light requests: with many large identifications in flight (real model, real
/// decoder, photos that take real CPU to decode), the queue refuses what it cannot hold and `/healthz` and a
/// catalog search still answer quickly, because decoding and inference run on the work pool.
@Suite struct LoadIsolationTests {
    /// An uncompressed (stored-deflate) PNG of random pixels: big to decode, nothing for the decoder to skip.
    static func noisePNG(width: Int, height: Int) -> Data {
        var crcTable = [UInt32](repeating: 0, count: 256)
        for n in 0..<256 {
            var c = UInt32(n)
            for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
            crcTable[n] = c
        }
        func crc(_ bytes: [UInt8]) -> UInt32 {
            var c: UInt32 = 0xFFFF_FFFF
            for byte in bytes { c = crcTable[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8) }
            return c ^ 0xFFFF_FFFF
        }
        func be(_ value: UInt32) -> [UInt8] { [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
        func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
            let typed = Array(type.utf8) + body
            return be(UInt32(body.count)) + typed + be(crc(typed))
        }
        var generator = SystemRandomNumberGenerator()
        var raw: [UInt8] = []
        raw.reserveCapacity((width * 3 + 1) * height)
        for _ in 0..<height {
            raw.append(0)
            for _ in 0..<(width * 3 / 8) {
                withUnsafeBytes(of: generator.next() as UInt64) { raw.append(contentsOf: $0) }
            }
            raw.append(contentsOf: repeatElement(0, count: width * 3 % 8))
        }
        var deflate: [UInt8] = [0x78, 0x01]
        var offset = 0
        while offset < raw.count {
            let length = min(65_535, raw.count - offset)
            deflate.append(offset + length == raw.count ? 1 : 0)
            deflate += [UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8((~length >> 8) & 0xFF)]
            deflate += raw[offset..<(offset + length)]
            offset += length
        }
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in raw {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        deflate += be(b << 16 | a)
        let header = be(UInt32(width)) + be(UInt32(height)) + [8, 2, 0, 0, 0]
        return Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", header) + chunk("IDAT", deflate) + chunk("IEND", []))
    }

    @Test(.timeLimit(.minutes(3)))
    func healthAndSearchStayQuickWhileLargeIdentificationsRun() async throws {
        let home = try LiveDependenciesTests.makeHome(withModel: true)
        defer { try? FileManager.default.removeItem(at: home) }
        // Each large photo takes seconds in a debug build on shared cores: this test is about isolation, so the
        // on-device time limit (10 s by default) is lifted out of its way.
        let dependencies = await ServerDependencies.live(dataDirectory: home, environment: ["PLANTGUIDE_ON_DEVICE_TIMEOUT": "600"])
        let photo = Self.noisePNG(width: 2_400, height: 2_400)
        let configuration = ServerConfiguration()
        try await makeApp(configuration: configuration, dependencies: dependencies).test(.router) { testClient in
            let session = try await Session.open(testClient)
            // The router test client only calls the responder, which serves concurrent requests.
            let client = SharedClient(client: testClient)
            var form = Multipart()
            form.file("photo", "noise.png", photo)
            form.field("strategy", "on-device")
            let (headers, body) = session.multipart(form)
            let results = Results()
            let statuses = results.statuses
            let probes = results.probes
            let inFlightAtEnd = results.inFlight
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<20 {
                    group.addTask {
                        let status = try? await client.client.execute(uri: "/api/identify", method: .post, headers: headers, body: body) {
                            $0.status.code
                        }
                        statuses.withLock { $0.append(status ?? -1) }
                    }
                }
                for query in ["philodendron", "sansiveria trifasciata"] {
                    group.addTask { _ = try? await client.client.execute(uri: "/api/catalog/plants?q=\(query)", method: .get) { $0.status } }
                }
                // While they run: light requests, timed as a client would see them.
                group.addTask {
                    // Once the burst's uploads have been handed over (the router test client streams each 17 MB body in
                    // 32 KB pieces through the cooperative pool, which takes a while in a debug build) and admitted or
                    // refused: 2 identifications running on the work pool, up to 8 waiting.
                    try? await Task.sleep(for: .seconds(2.5))
                    for uri in ["/healthz", "/api/catalog/plants?q=monstera", "/healthz", "/api/catalog/plants?q=fern", "/healthz"] {
                        let start = ContinuousClock.now
                        _ = try? await client.client.execute(uri: uri, method: .get) { $0.status }
                        let elapsed = ContinuousClock.now - start
                        probes.withLock { $0.append(Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000) }
                        try? await Task.sleep(for: .milliseconds(100))
                    }
                    inFlightAtEnd.withLock { $0 = [20 - statuses.withLock { $0.count }] }
                }
            }
            let answered = statuses.withLock { $0 }
            #expect(answered.count == 20)
            // 2 running + 8 waiting: the rest are refused at once with 503, never left to pile up.
            let refused = answered.filter { $0 == 503 }.count
            #expect(refused >= 20 - configuration.identifyConcurrency - configuration.identifyQueueLength, "\(answered)")
            #expect(answered.allSatisfy { $0 == 200 || $0 == 503 }, "\(answered)")
            let slowest = probes.withLock { $0.max() ?? .infinity }
            // The target is < 100 ms on an idle machine; other test suites share these two cores, hence the margin.
            #expect(probes.withLock { $0.count } == 5)
            print("light requests under load (ms):", probes.withLock { $0 }.map { Int($0) })
            // The probes really ran while admitted identifications were still working.
            #expect((inFlightAtEnd.withLock { $0.first } ?? 0) > 0)
            // The target is < 100 ms (a real server measured 2–21 ms); a debug build on a shared 2-core machine
            // with other suites running gets a margin: the median under 250 ms, the slowest under 2 s.
            let sorted = probes.withLock { $0 }.sorted()
            #expect(sorted[sorted.count / 2] < 250, "light requests took \(sorted) ms")
            #expect(slowest < 2_000, "light requests took \(probes.withLock { $0 }) ms")
        }
    }
}

/// What the concurrent requests saw.
final class Results: Sendable {
    let statuses = Box<[Int]>([])
    let probes = Box<[Double]>([])
    let inFlight = Box<[Int]>([])
}

/// A value shared between tasks.
final class Box<Value: Sendable>: Sendable {
    private let value: Mutex<Value>
    init(_ initial: Value) { value = Mutex(initial) }
    func withLock<T>(_ body: (inout Value) -> T) -> T { value.withLock { body(&$0) } }
}

/// Lets concurrent tasks share the router test client.
struct SharedClient<Client>: @unchecked Sendable {
    let client: Client
}
