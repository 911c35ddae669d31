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
    private let server: NIOAsyncChannel<NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>, Never>
    private let state: Mutex<State>
    private let serving = Mutex<Task<Void, Never>?>(nil)
    private let connections = Mutex<[ObjectIdentifier: any Channel]>([:])

    private struct State {
        var behaviour: PlantNetStubBehaviour
        var requests: [PlantNetStubRequest] = []
        var identifications = 0
    }

    private init(
        group: MultiThreadedEventLoopGroup,
        server: NIOAsyncChannel<NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>, Never>,
        behaviour: PlantNetStubBehaviour
    ) throws {
        self.group = group
        self.server = server
        guard let port = server.channel.localAddress?.port else { throw StubError("the server has no port") }
        self.port = port
        state = Mutex(State(behaviour: behaviour))
    }

    /// Starts a stub on 127.0.0.1, on `port` (0: a free one chosen by the system).
    public static func start(behaviour: PlantNetStubBehaviour = PlantNetStubBehaviour(), port: Int = 0) async throws
        -> PlantNetStub {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        do {
            let server = try await ServerBootstrap(group: group)
                .serverChannelOption(.backlog, value: 64)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .bind(host: "127.0.0.1", port: port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                        return try NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>(
                            wrappingChannelSynchronously: channel
                        )
                    }
                }
            let stub = try PlantNetStub(group: group, server: server, behaviour: behaviour)
            stub.serving.withLock { $0 = Task { await stub.serve() } }
            return stub
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
    }

    /// Stops listening and closes every connection.
    public func stop() async {
        try? await server.channel.close()
        let open = connections.withLock { $0.values }
        for channel in open { try? await channel.close() }
        let task = serving.withLock { $0 }
        await task?.value
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

    /// Blocks the calling task until the stub is stopped (for `plantguide dev plantnet-stub`).
    public func waitUntilStopped() async {
        let task = serving.withLock { $0 }
        await task?.value
    }

    // MARK: - Serving

    private func serve() async {
        await withDiscardingTaskGroup { connections in
            do {
                try await server.executeThenClose { inbound in
                    for try await connection in inbound {
                        connections.addTask { await self.handle(connection) }
                    }
                }
            } catch {
                // Closing the server ends the loop; nothing to report.
            }
        }
    }

    private func handle(_ connection: NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>) async {
        let id = ObjectIdentifier(connection.channel)
        connections.withLock { $0[id] = connection.channel }
        defer { connections.withLock { $0[id] = nil } }
        do {
            try await connection.executeThenClose { inbound, outbound in
                var head: HTTPRequestHead?
                var body = ByteBuffer()
                for try await part in inbound {
                    switch part {
                    case .head(let received):
                        head = received
                        body.clear()
                        if received.headers["expect"].contains(where: { $0.lowercased() == "100-continue" }) {
                            try await outbound.write(.head(HTTPResponseHead(version: received.version, status: .continue)))
                        }
                    case .body(var chunk):
                        body.writeBuffer(&chunk)
                    case .end:
                        guard let request = head else { continue }
                        let reply = await respond(to: request, body: Data(body.readableBytesView))
                        var headers = HTTPHeaders()
                        headers.add(name: "Content-Type", value: reply.contentType)
                        headers.add(name: "Content-Length", value: String(reply.body.count))
                        for (name, value) in reply.headers { headers.add(name: name, value: value) }
                        let status = HTTPResponseStatus(statusCode: reply.status)
                        try await outbound.write(.head(HTTPResponseHead(version: request.version, status: status, headers: headers)))
                        try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: reply.body))))
                        try await outbound.write(.end(nil))
                        head = nil
                    }
                }
            }
        } catch {
            // A client that hangs up mid-request is not the stub's problem.
        }
    }

    private struct Reply {
        var status: Int
        var body: Data
        var contentType = "application/json"
        var headers: [(String, String)] = []
    }

    private func respond(to head: HTTPRequestHead, body: Data) async -> Reply {
        let components = URLComponents(string: head.uri)
        var query: [String: String] = [:]
        for item in components?.queryItems ?? [] { query[item.name] = item.value ?? "" }
        var headers: [String: String] = [:]
        for (name, value) in head.headers { headers[name.lowercased()] = value }
        let path = components?.path ?? head.uri
        var parts: [MultipartPart] = []
        let (reply, latency) = state.withLock { state -> (Reply, Duration) in
            let reply = route(
                method: head.method, path: path, query: query, headers: headers, body: body, parts: &parts, state: &state
            )
            state.requests.append(PlantNetStubRequest(
                method: head.method.rawValue, path: path, query: query, headers: headers, parts: parts,
                bodyBytes: body.count, status: reply.status
            ))
            return (reply, state.behaviour.latency)
        }
        // Recorded on arrival, answered after the delay: a client that gives up still counts as a request.
        if latency > .zero { try? await Task.sleep(for: latency) }
        return reply
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

    private static func json(_ status: Int, _ value: Any) -> Reply {
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
