import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A stand-in for the Pl@ntNet v2 API: a real HTTP server on 127.0.0.1 that reads the multipart body and
/// enforces the contract (key → 401, image/organ mismatch → 400, quota → 429), with switchable "not a plant",
/// latency, failures and malformed answers. It records every request so tests can check what was sent.
///
/// ```swift
/// let stub = try await PlantNetStub.start()
/// defer { Task { await stub.stop() } }
/// // point PLANTGUIDE_PLANTNET_URL at stub.baseURL, key "stub-key"
/// ```
public final class PlantNetStub: Sendable {
    /// The port it listens on.
    public let port: Int
    /// `http://127.0.0.1:<port>`.
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel
    private let state: Mutex<State>

    private struct State {
        var behaviour: PlantNetStubBehaviour
        var requests: [PlantNetStubRequest] = []
        var identifications = 0
    }

    private init(behaviour: PlantNetStubBehaviour, group: MultiThreadedEventLoopGroup, channel: any Channel, port: Int) {
        state = Mutex(State(behaviour: behaviour))
        self.group = group
        self.channel = channel
        self.port = port
    }

    /// Starts a stub on 127.0.0.1, on `port` (0: a free one chosen by the system).
    ///
    /// Requests are served on the stub's own event-loop thread, never on Swift's cooperative pool, so a test
    /// that blocks a task waiting for a child process cannot starve the server that process talks to.
    public static func start(behaviour: PlantNetStubBehaviour = PlantNetStubBehaviour(), port: Int = 0) async throws
        -> PlantNetStub {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let box = Mutex<PlantNetStub?>(nil)
        do {
            let channel = try await ServerBootstrap(group: group)
                .serverChannelOption(.backlog, value: 64)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        guard let stub = box.withLock({ $0 }) else { throw StubError("the stub is not ready") }
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                        try channel.pipeline.syncOperations.addHandler(StubHandler(stub: stub))
                    }
                }
                .bind(host: "127.0.0.1", port: port)
                .get()
            guard let bound = channel.localAddress?.port else { throw StubError("the server has no port") }
            let stub = PlantNetStub(behaviour: behaviour, group: group, channel: channel, port: bound)
            box.withLock { $0 = stub }
            return stub
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
    }

    /// Stops listening and closes every connection.
    public func stop() async {
        try? await channel.close()
        try? await group.shutdownGracefully()
    }

    /// Changes how the stub answers from now on.
    public func configure(_ change: (inout PlantNetStubBehaviour) -> Void) {
        state.withLock { change(&$0.behaviour) }
    }

    /// Every request received, oldest first.
    public var requests: [PlantNetStubRequest] { state.withLock { $0.requests } }

    /// How many requests arrived.
    public var requestCount: Int { state.withLock { $0.requests.count } }

    /// Returns when the stub is stopped (for `plantguide dev plantnet-stub`).
    public func waitUntilStopped() async {
        try? await channel.closeFuture.get()
    }

    // MARK: - Answering

    struct Reply {
        var status: Int
        var body: Data
        var contentType = "application/json"
        var headers: [(String, String)] = []
    }

    /// Records the request and decides the answer; the caller waits `latency` before sending it.
    func respond(to head: HTTPRequestHead, body: Data) -> (reply: Reply, latency: Duration) {
        let components = URLComponents(string: head.uri)
        var query: [String: String] = [:]
        for item in components?.queryItems ?? [] { query[item.name] = item.value ?? "" }
        var headers: [String: String] = [:]
        for (name, value) in head.headers { headers[name.lowercased()] = value }
        let path = components?.path ?? head.uri
        var parts: [MultipartPart] = []
        return state.withLock { state in
            let reply = route(
                method: head.method, path: path, query: query, headers: headers, body: body, parts: &parts, state: &state
            )
            // Recorded on arrival, answered after the delay: a client that gives up still counts as a request.
            state.requests.append(PlantNetStubRequest(
                method: head.method.rawValue, path: path, query: query, headers: headers, parts: parts,
                bodyBytes: body.count, status: reply.status
            ))
            return (reply, state.behaviour.latency)
        }
    }

    private func route(
        method: HTTPMethod, path: String, query: [String: String], headers: [String: String], body: Data,
        parts: inout [MultipartPart], state: inout State
    ) -> Reply {
        let behaviour = state.behaviour
        guard query["api-key"] == behaviour.apiKey else {
            return Self.error(401, "Unauthorized", "Invalid API key")
        }
        if method == .GET, path == "/v2/projects" {
            return Self.json(200, [
                ["id": "all", "title": "All", "speciesCount": 78_000],
                ["id": "weurope", "title": "Western Europe", "speciesCount": 7_000],
                ["id": "k-world-flora", "title": "World flora", "speciesCount": 50_000],
            ])
        }
        let prefix = "/v2/identify/"
        guard path.hasPrefix(prefix), path.count > prefix.count else {
            return Self.error(404, "Not Found", "Unknown route \(path)")
        }
        guard method == .POST else { return Self.error(405, "Method Not Allowed", "Use POST") }
        guard let boundary = headers["content-type"].flatMap(MultipartParser.boundary(fromContentType:)) else {
            return Self.error(400, "Bad Request", "Content-Type must be multipart/form-data with a boundary")
        }
        do {
            parts = try MultipartParser.parse(body, boundary: boundary)
        } catch {
            return Self.error(400, "Bad Request", "Malformed multipart body: \(error)")
        }
        let images = parts.filter { $0.name == "images" }
        let organs = parts.filter { $0.name == "organs" }.map(\.text)
        guard (1...5).contains(images.count) else {
            return Self.error(400, "Bad Request", "Between 1 and 5 images are required")
        }
        guard organs.count == images.count else {
            return Self.error(400, "Bad Request", "Number of organs (\(organs.count)) must match images (\(images.count))")
        }
        let known: Set = ["leaf", "flower", "fruit", "bark", "auto", "habit", "other"]
        guard organs.allSatisfy(known.contains) else {
            return Self.error(400, "Bad Request", "Unknown organ in \(organs)")
        }
        if !behaviour.failures.isEmpty {
            let status = state.behaviour.failures.removeFirst()
            return Self.error(status, "Injected", "Injected failure \(status)")
        }
        let rateLimit = [("RateLimit-Policy", "\(behaviour.quotaLimit);w=86400")]
        guard state.identifications < behaviour.quotaLimit else {
            var reply = Self.error(429, "Too Many Requests", "Too many requests")
            if behaviour.sendsRateLimitHeader { reply.headers = rateLimit + [("RateLimit", "\"default\";r=0;t=3600")] }
            return reply
        }
        state.identifications += 1
        let remaining = behaviour.quotaLimit - state.identifications
        var reply: Reply
        if behaviour.notAPlant {
            reply = Self.error(404, "Not Found", "Species not found")
        } else if behaviour.malformedAnswer {
            reply = Reply(status: 200, body: Data("{\"results\": [{\"score\": \"high\"".utf8))
        } else {
            reply = Self.json(200, Self.answer(behaviour: behaviour, project: String(path.dropFirst(prefix.count)),
                                               organs: organs, language: query["lang"] ?? "en", remaining: remaining))
        }
        if behaviour.sendsRateLimitHeader {
            reply.headers = rateLimit + [("RateLimit", "\"default\";r=\(remaining);t=3600")]
        }
        return reply
    }

    private static func answer(
        behaviour: PlantNetStubBehaviour, project: String, organs: [String], language: String, remaining: Int
    ) -> [String: Any] {
        let results: [[String: Any]] = behaviour.species.map { species in
            [
                "score": species.score,
                "species": [
                    "scientificNameWithoutAuthor": species.scientificName,
                    "scientificNameAuthorship": species.authorship,
                    "scientificName": "\(species.scientificName) \(species.authorship)",
                    "genus": ["scientificNameWithoutAuthor": species.genus, "scientificName": species.genus],
                    "family": ["scientificNameWithoutAuthor": species.family, "scientificName": species.family],
                    "commonNames": species.commonNames,
                ] as [String: Any],
                "gbif": ["id": species.gbifId],
            ]
        }
        return [
            "query": ["project": project, "organs": organs, "images": organs.indices.map { "stub-image-\($0)" }],
            "language": language,
            "preferedReferential": project,
            "bestMatch": behaviour.species.first.map { "\($0.scientificName) \($0.authorship)" } ?? "",
            "results": results,
            "version": "2025-01-17 (7.3)",
            "remainingIdentificationRequests": remaining,
        ]
    }

    static func json(_ status: Int, _ value: Any) -> Reply {
        let data = (try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys])) ?? Data("{}".utf8)
        return Reply(status: status, body: data)
    }

    private static func error(_ status: Int, _ error: String, _ message: String) -> Reply {
        json(status, ["statusCode": status, "error": error, "message": message])
    }
}

/// The stub could not start.
public struct StubError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
