import Foundation
import PlantGuideTestSupport
@testable import PlantNetAPI
import Testing

@Suite struct PlantNetClientTests {
    @Test func sendsMultipartWithOrgansInImageOrder() async throws {
        try await withStub { stub in
            let images = [image(1, organ: .leaf), image(2, organ: .flower), image(3, organ: .habit)]
            let options = PlantNetOptions(project: "weurope", language: "fr", resultCount: 5)
            let answer = try await client(stub).identify(images, options: options)
            #expect(answer.identification.best?.scientificName == "Monstera deliciosa")

            let request = try #require(stub.requests.last)
            #expect(request.method == "POST")
            #expect(request.path == "/v2/identify/weurope")
            #expect(request.query["api-key"] == "stub-key")
            #expect(request.query["nb-results"] == "5")
            #expect(request.query["lang"] == "fr")
            #expect(request.query["include-related-images"] == "false")
            #expect(request.query["no-reject"] == "false")
            #expect(request.headers["content-type"]?.hasPrefix("multipart/form-data; boundary=") == true)
            let organs = request.parts.filter { $0.name == "organs" }
            #expect(organs.map(\.text) == ["leaf", "flower", "habit"])
            #expect(organs.allSatisfy { $0.filename == nil && $0.contentType == nil })
            let files = request.parts.filter { $0.name == "images" }
            #expect(files.map(\.data) == images.map(\.jpeg))
            #expect(files.allSatisfy { $0.contentType == "image/jpeg" })
            #expect(files.compactMap(\.filename) == ["photo1.jpg", "photo2.jpg", "photo3.jpg"])
            #expect(request.parts.count == 6)
        }
    }

    @Test func sendsLargePhotosWhole() async throws {
        try await withStub { stub in
            let big = (0..<3).map { PlantNetImage(jpeg: photo(UInt8($0), size: 1_500_000), organ: .leaf, sha256: "\($0)") }
            let answer = try await client(stub).identify(big)
            #expect(answer.identification.best != nil)
            let request = try #require(stub.requests.last)
            #expect(request.parts.filter { $0.name == "images" }.map(\.data) == big.map(\.jpeg))
        }
    }

    @Test func decodesTheAnswer() async throws {
        try await withStub { stub in
            let answer = try await client(stub).identify([image(1)])
            let best = try #require(answer.identification.best)
            #expect(answer.identification.source == .plantNetAPI)
            #expect(answer.identification.predictions.map(\.rank) == [1, 2, 3, 4])
            #expect(best.authorship == "Liebm.")
            #expect(best.genus == "Monstera")
            #expect(best.gbifId == "2868241")
            #expect(best.family == "Araceae")
            #expect(best.commonNames.first == "Swiss cheese plant")
            #expect(abs(best.confidence - 0.91) < 1e-9)
            #expect(answer.identification.uncertain == false)
            #expect(answer.remainingRequests == 499)
            #expect(answer.secondsUntilReset == 3600)
            #expect(answer.notAPlant == false)
        }
    }

    @Test func speciesNotFoundIsAnAnswerNotAnError() async throws {
        var behaviour = PlantNetStubBehaviour()
        behaviour.notAPlant = true
        try await withStub(behaviour) { stub in
            let answer = try await client(stub).identify([image(1)])
            #expect(answer.notAPlant)
            #expect(answer.identification.predictions.isEmpty)
            #expect(stub.requests.last?.status == 404)
        }
    }

    @Test(arguments: [
        (400, PlantNetError.badRequest("Injected failure 400")),
        (403, PlantNetError.forbidden("Injected failure 403")),
        (413, PlantNetError.payloadTooLarge(bytes: nil)),
        (418, PlantNetError.unexpectedStatus(418, "Injected failure 418")),
    ])
    func mapsClientErrorsWithoutRetrying(status: Int, expected: PlantNetError) async throws {
        var behaviour = PlantNetStubBehaviour()
        behaviour.failures = [status, status]
        try await withStub(behaviour) { stub in
            let sleeper = SleepRecorder()
            await #expect(throws: expected) { try await client(stub, sleeper: sleeper).identify([image(1)]) }
            #expect(stub.requestCount == 1)
            #expect(sleeper.recorded.isEmpty)
        }
    }

    @Test func invalidKeyIs401() async throws {
        try await withStub { stub in
            await #expect(throws: PlantNetError.invalidAPIKey) {
                try await client(stub, key: "wrong-key").identify([image(1)])
            }
        }
    }

    @Test func quotaExhaustedCarriesTheResetTime() async throws {
        var behaviour = PlantNetStubBehaviour()
        behaviour.quotaLimit = 1
        try await withStub(behaviour) { stub in
            let fixed = Date(timeIntervalSince1970: 1_800_000_000)
            let api = client(stub, now: { fixed })
            _ = try await api.identify([image(1)])
            await #expect(throws: PlantNetError.quotaExhausted(resetsAt: fixed.addingTimeInterval(3600))) {
                try await api.identify([image(1)])
            }
        }
    }

    @Test func quotaWithoutHeaderResetsAtMidnightUTC() async throws {
        var behaviour = PlantNetStubBehaviour()
        behaviour.quotaLimit = 0
        behaviour.sendsRateLimitHeader = false
        try await withStub(behaviour) { stub in
            let time = ManualTime(iso8601: "2026-03-01T17:30:00Z")
            let midnight = try #require(ISO8601DateFormatter().date(from: "2026-03-02T00:00:00Z"))
            await #expect(throws: PlantNetError.quotaExhausted(resetsAt: midnight)) {
                try await client(stub, now: time.now).identify([image(1)])
            }
        }
    }

    @Test func retriesOnceOn500ThenSucceeds() async throws {
        var behaviour = PlantNetStubBehaviour()
        behaviour.failures = [500]
        try await withStub(behaviour) { stub in
            let sleeper = SleepRecorder()
            let answer = try await client(stub, sleeper: sleeper).identify([image(1)])
            #expect(answer.identification.best != nil)
            #expect(stub.requests.map(\.status) == [500, 200])
            #expect(sleeper.recorded == [.milliseconds(500)])
        }
    }

    @Test func gives5xxUpAfterOneRetry() async throws {
        var behaviour = PlantNetStubBehaviour()
        behaviour.failures = [503, 502, 500]
        try await withStub(behaviour) { stub in
            await #expect(throws: PlantNetError.serverError(status: 502, message: "Injected failure 502")) {
                try await client(stub).identify([image(1)])
            }
            #expect(stub.requestCount == 2)
        }
    }

    @Test func malformedAnswerIsTyped() async throws {
        var behaviour = PlantNetStubBehaviour()
        behaviour.malformedAnswer = true
        try await withStub(behaviour) { stub in
            let error = await #expect(throws: PlantNetError.self) { try await client(stub).identify([image(1)]) }
            guard case .malformedResponse = error else { Issue.record("got \(String(describing: error))"); return }
        }
    }

    @Test func slowAnswerIsATimeout() async throws {
        var behaviour = PlantNetStubBehaviour()
        behaviour.latency = .seconds(2)
        try await withStub(behaviour) { stub in
            let error = await #expect(throws: PlantNetError.self) {
                try await client(stub, timeout: .seconds(1)).identify([image(1)])
            }
            guard case .timeout = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(stub.requestCount == 1)
        }
    }

    @Test func refusedConnectionIsOfflineAfterOneRetryAndHidesTheKey() async throws {
        let offline = try RefusingPort()
        defer { offline.release() }
        let log = LineRecorder()
        let sleeper = SleepRecorder()
        let secret = "secret-key-123"
        let api = PlantNetClient(
            configuration: PlantNetConfiguration(baseURL: offline.url, apiKey: secret),
            log: log.log, sleep: sleeper.sleep
        )
        let error = await #expect(throws: PlantNetError.self) { try await api.identify([image(1)]) }
        guard case .offline = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(sleeper.recorded.count == 1)
        #expect(!String(describing: error).contains(secret))
        #expect(log.lines.count >= 2)
        #expect(log.lines.allSatisfy { !$0.contains(secret) })
        #expect(log.lines.contains { $0.contains("api-key=***") })
    }

    @Test(arguments: [
        [PlantNetOrgan](),
        [.leaf, .leaf, .leaf, .leaf, .leaf, .leaf],
        [.habit],
        [.other, .habit],
        [.auto, .habit],
    ])
    func refusesInvalidOrgansBeforeSending(organs: [PlantNetOrgan]) async throws {
        try await withStub { stub in
            let images = organs.enumerated().map { image(UInt8($0.offset), organ: $0.element) }
            let error = await #expect(throws: PlantNetError.self) { try await client(stub).identify(images) }
            guard case .invalidRequest = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(stub.requestCount == 0)
        }
    }

    @Test func refusesMoreThan50MegabytesBeforeSending() async throws {
        try await withStub { stub in
            let big = PlantNetImage(jpeg: Data(count: 26 * 1_048_576), organ: .leaf, sha256: "a")
            let error = await #expect(throws: PlantNetError.self) { try await client(stub).identify([big, big]) }
            guard case .payloadTooLarge = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(stub.requestCount == 0)
        }
    }

    @Test func missingKeyIsTyped() async throws {
        let api = PlantNetClient(configuration: PlantNetConfiguration(apiKey: nil))
        await #expect(throws: PlantNetError.missingAPIKey) { try await api.identify([image(1)]) }
    }

    @Test func listsProjects() async throws {
        try await withStub { stub in
            let projects = try await client(stub).projects()
            #expect(projects.map(\.id).contains("all"))
            #expect(stub.requests.last?.path == "/v2/projects")
        }
    }

    @Test func readsBothRateLimitHeaderForms() {
        #expect(RateLimitHeader("\"default\";r=480;t=3600") == RateLimitHeader("limit=500, remaining=480, reset=3600"))
        #expect(RateLimitHeader("r=7;t=60")?.remaining == 7)
        #expect(RateLimitHeader("r=7;t=60")?.secondsUntilReset == 60)
        #expect(RateLimitHeader("nothing here") == nil)
    }
}
