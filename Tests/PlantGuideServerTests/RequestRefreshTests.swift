import Hummingbird
import HummingbirdTesting
import Logging
import Synchronization
import Testing
@testable import PlantGuideServer

/// An idle server does no work: the replicas' refresh runs one interval after requests, not on a timer.
@Suite struct RequestRefreshTests {
    @Test func theRefreshRunsAnIntervalAfterRequestsAndNeverWhileIdle() async throws {
        let rounds = Mutex(0)
        var dependencies = ServerDependencies(catalog: fixtureCatalog)
        dependencies.refresh = ServerRefresh(interval: .milliseconds(200)) { rounds.withLock { $0 += 1 } }
        let app = try buildApplication(
            configuration: ServerConfiguration(), dependencies: dependencies,
            logger: Logger(label: "plantguide.test.refresh") { _ in SwiftLogNoOpLogHandler() }
        )
        try await app.test(.router) { client in
            try await Task.sleep(for: .milliseconds(700))
            #expect(rounds.withLock { $0 } == 0, "no round without a request")
            for _ in 0..<3 {
                try await client.execute(uri: "/healthz", method: .get) { #expect($0.status == .ok) }
            }
            var waited = 0
            while rounds.withLock({ $0 }) == 0, waited < 100 {
                try await Task.sleep(for: .milliseconds(100))
                waited += 1
            }
            try await Task.sleep(for: .milliseconds(500))
            let afterRequests = rounds.withLock { $0 }
            // Three requests close together make one round (or two when the machine was so slow that the round began
            // between them).
            #expect((1...2).contains(afterRequests), "\(afterRequests) rounds")
            try await Task.sleep(for: .milliseconds(700))
            #expect(rounds.withLock { $0 } == afterRequests, "no round once requests stop")
        }
    }
}
