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
        try await start(behaviour: behaviour) { $0.bind(host: "127.0.0.1", port: port) }
    }

    /// Starts a stub listening on `socket`, a TCP socket already bound on 127.0.0.1, which it then owns: a test that
    /// held a port (refusing connections, "Pl@ntNet is offline") hands it over without letting it go, so that no
    /// other server or connection can take the port in between.
    public static func start(behaviour: PlantNetStubBehaviour = PlantNetStubBehaviour(), boundSocket socket: CInt) async throws
        -> PlantNetStub {
        try await start(behaviour: behaviour) { $0.withBoundSocket(socket) }
    }

    private static func start(behaviour: PlantNetStubBehaviour, listen: (ServerBootstrap) -> EventLoopFuture<any Channel>) async throws
        -> PlantNetStub {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let box = Mutex<PlantNetStub?>(nil)
        do {
            let bootstrap = ServerBootstrap(group: group)
                .serverChannelOption(.backlog, value: 64)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        guard let stub = box.withLock({ $0 }) else { throw StubError("the stub is not ready") }
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                        try channel.pipeline.syncOperations.addHandler(StubHandler(stub: stub))
                    }
                }
            let channel = try await listen(bootstrap).get()
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
        var parts: [StubPart] = []
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
        parts: inout [StubPart], state: inout State
    ) -> Reply {
        let behaviour = state.behaviour
        // Reference photos are public, as the service's are: no key needed.
        if method == .GET, path.hasPrefix("/images/"), let photo = StubPhotos.photo(named: String(path.dropFirst("/images/".count))) {
            return Reply(status: 200, body: photo, contentType: "image/jpeg")
        }
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
        if method == .GET, path == "/v2/diseases" {
            return Self.json(200, behaviour.diseaseList.map { disease -> [String: Any] in
                ["name": disease.eppoCode, "label": disease.name ?? "", "categories": disease.categories]
            })
        }
        let diseases = path == "/v2/diseases/identify"
        let prefix = "/v2/identify/"
        guard diseases || (path.hasPrefix(prefix) && path.count > prefix.count) else {
            return Self.error(404, "Not Found", "Unknown route \(path)")
        }
        guard method == .POST else { return Self.error(405, "Method Not Allowed", "Use POST") }
        guard let boundary = headers["content-type"].flatMap(StubPart.boundary(fromContentType:)) else {
            return Self.error(400, "Bad Request", "Content-Type must be multipart/form-data with a boundary")
        }
        do {
            parts = try StubPart.parse(body, boundary: boundary)
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
        // The disease service's documentation names leaf, flower, fruit, bark and auto.
        let known: Set = diseases ? ["leaf", "flower", "fruit", "bark", "auto"] : ["leaf", "flower", "fruit", "bark", "auto", "habit", "other"]
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
        } else if diseases {
            let images = query["include-related-images"] == "true" ? headers["host"].map { "http://\($0)/images/" } : nil
            let count = query["nb-results"].flatMap(Int.init) ?? 10
            reply = Self.json(200, Self.diagnosis(
                behaviour.diseases.prefix(count), organs: organs, query: query, remaining: remaining, imagesBase: images
            ))
        } else {
            // Related images point back at this stub, at the address the client used.
            let images = query["include-related-images"] == "true" ? headers["host"].map { "http://\($0)/images/" } : nil
            reply = Self.json(200, Self.answer(behaviour: behaviour, project: String(path.dropFirst(prefix.count)),
                                               organs: organs, language: query["lang"] ?? "en", remaining: remaining,
                                               imagesBase: images))
        }
        if behaviour.sendsRateLimitHeader {
            reply.headers = rateLimit + [("RateLimit", "\"default\";r=\(remaining);t=3600")]
        }
        return reply
    }

    private static func answer(
        behaviour: PlantNetStubBehaviour, project: String, organs: [String], language: String, remaining: Int,
        imagesBase: String?
    ) -> [String: Any] {
        let results: [[String: Any]] = behaviour.species.enumerated().map { index, species in
            var result: [String: Any] = [
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
            if let imagesBase {
                // Six per species, as the service sends more than a page shows; photo n of species i is (i + n) % 4.
                result["images"] = (0..<6).map { number -> [String: Any] in
                    let name = "\((index + number) % StubPhotos.count).jpg"
                    return [
                        "organ": ["leaf", "flower", "fruit", "habit"][number % 4],
                        "author": "Stub Photographer \(number + 1)",
                        "license": "cc-by-sa",
                        "date": ["timestamp": 1_700_000_000_000, "string": "November 14, 2023"],
                        "citation": "Stub Photographer \(number + 1) / Pl@ntNet stub, cc-by-sa",
                        "url": ["o": imagesBase + name, "m": imagesBase + name, "s": imagesBase + name],
                    ]
                }
            }
            return result
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

    /// A disease answer shaped as the documentation shows: `{query, language, results: [{name, description, score,
    /// images}], version, remainingIdentificationRequests}`; a disease without a name has no `description` key.
    private static func diagnosis(
        _ diseases: ArraySlice<StubDisease>, organs: [String], query: [String: String], remaining: Int, imagesBase: String?
    ) -> [String: Any] {
        let results: [[String: Any]] = diseases.enumerated().map { index, disease in
            var result: [String: Any] = ["name": disease.eppoCode, "score": disease.score]
            if let name = disease.name { result["description"] = name }
            if let imagesBase {
                result["images"] = (0..<2).map { number -> [String: Any] in
                    let name = "\((index + number) % StubPhotos.count).jpg"
                    return [
                        "organ": "leaf", "author": "Stub Pathologist \(number + 1)", "license": "cc-by",
                        "date": ["timestamp": 1_700_000_000_000, "string": "November 14, 2023"],
                        "citation": "Stub Pathologist \(number + 1) / Pl@ntNet stub, cc-by",
                        "url": ["o": imagesBase + name, "m": imagesBase + name, "s": imagesBase + name],
                    ]
                }
            }
            return result
        }
        return [
            "query": [
                "images": organs.indices.map { "stub-image-\($0)" }, "organs": organs,
                "includeRelatedImages": query["include-related-images"] == "true", "noReject": query["no-reject"] == "true",
            ] as [String: Any],
            "language": query["lang"] ?? "en",
            "results": results,
            "version": "2025-03-10 (diseases 1.2)",
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

/// Small JPEGs (96×96 leaves on four backgrounds) the stub serves as the reference photos of its answers.
enum StubPhotos {
    static let count = base64.count

    /// `N.jpg` for N in 0..<count.
    static func photo(named name: String) -> Data? {
        guard name.hasSuffix(".jpg"), let number = Int(name.dropLast(4)), base64.indices.contains(number) else { return nil }
        return Data(base64Encoded: base64[number])
    }

    private static let base64 = [
        "/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAoHBwgHBgoICAgLCgoLDhgQDg0NDh0VFhEYIx8lJCIfIiEmKzcvJik0KSEiMEExNDk7Pj4+JS5ESUM8SDc9Pjv/2wBDAQoLCw4NDhwQEBw7KCIoOzs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozv/wAARCABgAGADASIAAhEBAxEB/8QAHwAAAQUBAQEBAQEAAAAAAAAAAAECAwQFBgcICQoL/8QAtRAAAgEDAwIEAwUFBAQAAAF9AQIDAAQRBRIhMUEGE1FhByJxFDKBkaEII0KxwRVS0fAkM2JyggkKFhcYGRolJicoKSo0NTY3ODk6Q0RFRkdISUpTVFVWV1hZWmNkZWZnaGlqc3R1dnd4eXqDhIWGh4iJipKTlJWWl5iZmqKjpKWmp6ipqrKztLW2t7i5usLDxMXGx8jJytLT1NXW19jZ2uHi4+Tl5ufo6erx8vP09fb3+Pn6/8QAHwEAAwEBAQEBAQEBAQAAAAAAAAECAwQFBgcICQoL/8QAtREAAgECBAQDBAcFBAQAAQJ3AAECAxEEBSExBhJBUQdhcRMiMoEIFEKRobHBCSMzUvAVYnLRChYkNOEl8RcYGRomJygpKjU2Nzg5OkNERUZHSElKU1RVVldYWVpjZGVmZ2hpanN0dXZ3eHl6goOEhYaHiImKkpOUlZaXmJmaoqOkpaanqKmqsrO0tba3uLm6wsPExcbHyMnK0tPU1dbX2Nna4uPk5ebn6Onq8vP09fb3+Pn6/9oADAMBAAIRAxEAPwD1qiiioMgooooAKKKx7nxboNrII5NSiYkZzEDIPzUEfhSbS3E2lubFFZcviTR4L82M18kU69RICqjjP3iMdPetKORJY1kjdXRwGVlOQQehBoTTBNPYdRRRTGFFFFABRRRQAVma7rtroNibi4O6RsiKEH5pD/Qep7fXANu+vIdPsZry4bEcKFm5GT7DPc9B7mvHNT1O61e+e8vJN0jcAD7qDsoHYf561lUnyrQxq1ORabk+seINQ1ybfdy4jGNsMeRGpHfGevJ5PPPpWbRRXI23ucDbbuzZ8Xf8jPd/8A/9AWqel6ve6PdCezmZDkFkydkmOzDv1P0zxirni7/kZ7v/AIB/6AtY1U3aTKk2pNo9a8NeJYNftcHbFeRj97Fnr/tL7fy/Incrw+1up7G6jubaVopozlXXt/n0r1/QdVTWdIgvF2h2G2VR/C46jGTj1GexFdFOfNozso1ebR7mjRRRWxuFFFFAHD/EbU2SG20yOTHmZlmUZBIHC+xGdxx6qK4Guh8dTyS+KrhHbKwoiIMdBtDY/Nj+dc9XFUd5M86q7zYUUUVBmbPi7/kZ7v8A4B/6AtY1bPi7/kZ7v/gH/oC1jU5bsqfxMK7D4d6m0Gpy6c8n7u5QsinJ+dfTsMrnP+6K4+tLw5PJb+I9PeJtrG4RCcZ4Y7SPyJpwdpJjpu0kz2Siiiu49IKKKKAPKPHEbp4su2ZGUOEZSRjcNgGR68gj8KwK7n4k6eRJaakoYggwOcjA6svHXnLfkPx4auKorSZ51VWmwoooqDM2fF3/ACM93/wD/wBAWsatnxd/yM93/wAA/wDQFrGpy3ZU/iYVo+H43k8RacsaM5FzG2FGeAwJP4AE1nV1Xw9083OuteENstIycgj7zfKAR16bvypxV5JBBXkkemUUUV3HphRRRQBU1XT49V0y4sZThZkwG/unqD1GcEA49q8aurWexupLa5iaKaM4ZG7f59a9wrD8S+GoNftcjbFeRj91Ljr/ALLe38vzByqQ5tUYVqfOrrc8loqzqGnXel3Rtr2BoZQA2CQcg9wRwfwqtXIcLVjZ8Xf8jPd/8A/9AWsatnxd/wAjPd/8A/8AQFrMtbWe+uo7a2iaWaQ4VF7/AOfWnL4mVL4mRxxvLIscaM7uQqqoyST0AFeveGdI/sXRIbZxiZ/3k3++eo6kcDA464z3rO8J+E00aMXl4qvfuOB1EIPYe/qfwHcnp66aUOXVnXRpcur3CiiitjoCiiigAooooAhubS2vIxHdW8U6A7gsqBgD64P1rnrn4f6HPIGjFxbADGyKXIPv8wJrp6KlxT3JcYy3Rzsvg7S9R1A6ld+fI8n3ot+EOBtHQZ7A9a2LLTbLTo/LsrWKAEAEooBbHTJ6n6mrCIEQKM4HrTqFFIFFLWwUUUVRQUUUUAf/2Q==",
        "/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAoHBwgHBgoICAgLCgoLDhgQDg0NDh0VFhEYIx8lJCIfIiEmKzcvJik0KSEiMEExNDk7Pj4+JS5ESUM8SDc9Pjv/2wBDAQoLCw4NDhwQEBw7KCIoOzs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozv/wAARCABgAGADASIAAhEBAxEB/8QAHwAAAQUBAQEBAQEAAAAAAAAAAAECAwQFBgcICQoL/8QAtRAAAgEDAwIEAwUFBAQAAAF9AQIDAAQRBRIhMUEGE1FhByJxFDKBkaEII0KxwRVS0fAkM2JyggkKFhcYGRolJicoKSo0NTY3ODk6Q0RFRkdISUpTVFVWV1hZWmNkZWZnaGlqc3R1dnd4eXqDhIWGh4iJipKTlJWWl5iZmqKjpKWmp6ipqrKztLW2t7i5usLDxMXGx8jJytLT1NXW19jZ2uHi4+Tl5ufo6erx8vP09fb3+Pn6/8QAHwEAAwEBAQEBAQEBAQAAAAAAAAECAwQFBgcICQoL/8QAtREAAgECBAQDBAcFBAQAAQJ3AAECAxEEBSExBhJBUQdhcRMiMoEIFEKRobHBCSMzUvAVYnLRChYkNOEl8RcYGRomJygpKjU2Nzg5OkNERUZHSElKU1RVVldYWVpjZGVmZ2hpanN0dXZ3eHl6goOEhYaHiImKkpOUlZaXmJmaoqOkpaanqKmqsrO0tba3uLm6wsPExcbHyMnK0tPU1dbX2Nna4uPk5ebn6Onq8vP09fb3+Pn6/9oADAMBAAIRAxEAPwD12iiisiQooooAKKKzbzxFpFhJ5dxfxB8kFUy5UjqCFzj8aTaW4NpbmlRWe2vaUl49pJfRRTRjLCTKAdO547jvWhQmnsCaewUUUUwCiiigAooooAKiubmCztnuLiRY4oxlmPapa848Z6w9/qrWccjfZ7U7dueGcfeOMdun4cdazq1OSNyZy5Vcg1/xRdazI8MbNDZZG2LjLY6Fj/Tp09M1h0UV5kpOTuzkbbd2avif/kYbr/gH/oApNF8QXuiSjyX3wM26SBujduD2PuPQZzil8T/8jDdf8A/9AFZVVJuM213C7Tuj2DTtRttVs0urV9yNwQeqnuCOxq1XlfhzWH0fVY5GkYW8hCzrngr64wemc+vbvXqlehSqe0j5nVCXMgooorUsKKKKAKGuXx03Rbq7UsHSPCEAHDHhTz7kV5JXo3juaSLw+qI2FlnVHGOowW/morzmuDEu8rHNVetgooorlMjV8T/8jDdf8A/9AFZVavif/kYbr/gH/oArKq6nxsb3CvTvB98b3w9CGLF7cmFiQB06Yx/skD8K8xruPh5NI0F9AW/doyOox0JBB/8AQR+Va4d2nY0pP3jsqKKK9E6QooooA5nx6jvoMbKrMEuFLED7o2sMn8SB+Ned16x4is3v9AvLePdvMe5Qq7ixUhgAPfGPxryevPxKtO5zVV7wUUUVzGRq+J/+Rhuv+Af+gCsqtXxP/wAjDdf8A/8AQBWVV1PjY3uFdv8ADtHEeoSFWCMYwGxwSN2Rn8R+dcRXpXgqze08PI77gbiRpdpXGBwB9chQc+9a4dXqXLpL3joKKKK9E6gooooAK8w8V6T/AGVrL+Wm23uP3kWBgD1XoBwew6AivT6q6jp1tqtm9rdJuRuQR1U9iD2NZVafPGxE48yPH6K0tZ0K80W5ZJkZ4c4ScL8r56fQ8Hj+nNZteY007M5Wrbmr4n/5GG6/4B/6AKyq1fE//Iw3X/AP/QBVbTdLvNWuRBaQs/IDPj5Uz3Y9uh/pVzTc2l3Ddj9E0x9X1WG0XcEY5kYfwoOpzg49B7kV6yiJFGscaqiKAFVRgADoAKoaLottolmIIBuduZZSOXP9B6Dt+ZrRrvo0+Ra7nVCHKgooorYsKKKKACiiigBk0EVxEYp4kljbqjqGB/A1hXngrRruTekctsSSW8l8A59iCB+GK6CiplGMt0JpPcwT4V0u+u3v7tJZnlGChfCjGBkYweg9e9bNva29pGY7aCKBCclY0Cgn1wKfGgjQIM4HrTqFFLVIIxSCiiiqGFFFFAH/2Q==",
        "/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAoHBwgHBgoICAgLCgoLDhgQDg0NDh0VFhEYIx8lJCIfIiEmKzcvJik0KSEiMEExNDk7Pj4+JS5ESUM8SDc9Pjv/2wBDAQoLCw4NDhwQEBw7KCIoOzs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozv/wAARCABgAGADASIAAhEBAxEB/8QAHwAAAQUBAQEBAQEAAAAAAAAAAAECAwQFBgcICQoL/8QAtRAAAgEDAwIEAwUFBAQAAAF9AQIDAAQRBRIhMUEGE1FhByJxFDKBkaEII0KxwRVS0fAkM2JyggkKFhcYGRolJicoKSo0NTY3ODk6Q0RFRkdISUpTVFVWV1hZWmNkZWZnaGlqc3R1dnd4eXqDhIWGh4iJipKTlJWWl5iZmqKjpKWmp6ipqrKztLW2t7i5usLDxMXGx8jJytLT1NXW19jZ2uHi4+Tl5ufo6erx8vP09fb3+Pn6/8QAHwEAAwEBAQEBAQEBAQAAAAAAAAECAwQFBgcICQoL/8QAtREAAgECBAQDBAcFBAQAAQJ3AAECAxEEBSExBhJBUQdhcRMiMoEIFEKRobHBCSMzUvAVYnLRChYkNOEl8RcYGRomJygpKjU2Nzg5OkNERUZHSElKU1RVVldYWVpjZGVmZ2hpanN0dXZ3eHl6goOEhYaHiImKkpOUlZaXmJmaoqOkpaanqKmqsrO0tba3uLm6wsPExcbHyMnK0tPU1dbX2Nna4uPk5ebn6Onq8vP09fb3+Pn6/9oADAMBAAIRAxEAPwD1eiiiqMAooooAKKKyL/xZoOmS+VdanCJNxUpHmQqR1DBQdp+tDaW4m0tzXorLk8TaLDqElhNqMMNxEoZ1lJQDIBHzHAJwRwDWpQmnsF0wooooGFFFFABRRRQAUUVxnxI137BpK6ZBJie9+/tPKxDr0ORuPHTBG4UpS5VcmTsrnP8AjHx1cX8tzpWnFY7IN5bzKctNjIOCDjYfbqB1wSK4qiiuCUnJ3Zxyk5O7N7xv/wAjfff9s/8A0WtWPC3ja88P7LWVftFgXy0Z+/GD12HPrzg8fTJNV/G//I333/bP/wBFrWDRzOMrobbUm0fQ0ciTRJLE6vG6hldTkMD0IPcU6vO/hjrv+u0SeT1lttx/76UZP/AgAP7xr0Su6EuZXOuMuZXCiiiqKCiiigArxXxtffb/ABbfOGkKQv5Khz93YNpx6DcGP417VXz3cXEt3cy3M7b5ZnLu2AMsTknA965670SMKz0SI6KKK5TnN7xv/wAjfff9s/8A0WtYNb3jf/kb77/tn/6LWsGm9xy3Zd0a+/szWbO+LSKsEyu/ln5iufmA+oyPxr3uvneve9GuJbvQ7C5nbfLNbRu7YAyxUEnA966KD3RtRe6LtFFFdJ0BRRRQAV88yRvDK8UqMkiMVZGGCpHUEdjX0NXiPjC0+xeLdSi3790xlzjH3wHx+G7H4Vz11omYVlomYtFFFcpzm943/wCRvvv+2f8A6LWsGt7xv/yN99/2z/8ARa1g03uOW7CvedCjeHw/psUqMkiWkSsjDBUhBkEdjXh+nWn2/U7Wy3+X9omSLfjO3cQM479a9/rooLdm1FbsKKKK6ToCiiigArhPidonn2UOsxD57fEU3PVCflPXsxxwMnd7V3dNkjSaJ4pUV43UqyMMhgeoI7iplHmViZR5lY+eaK6bxZ4OvNDuZ7qCHfppfKSIc+UGPCsCc8dM9Dxzk4rma4GnF2ZxtNOzN7xv/wAjfff9s/8A0WtYNb3jf/kb77/tn/6LWo/D3hbUfEU4+zp5dsrhZbhvupxngfxHHYeozjOadm5WQ2m5NI6L4Y6J597NrMo+S3zFDz1cj5j17KccjB3e1emVDZ2dvp9pHaWkKwwRLtRF6D/E+/epq7oR5VY6oR5VYKKKKosKKKKACiiigBskaTRPFKivG6lWRhkMD1BHcVzN/wDDvw/fS+YkU1mxYswt5MBs+zAgAdgMda6iik4p7iaT3Ocm8E6NqWpS6nfJNPJOoBjMm1BgAAjbg5wPXua37e3gtIFgtoY4YlztjjUKoyc8Ae9PRQihR0FLSjFIEkgoooqhhRRRQB//2Q==",
        "/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAoHBwgHBgoICAgLCgoLDhgQDg0NDh0VFhEYIx8lJCIfIiEmKzcvJik0KSEiMEExNDk7Pj4+JS5ESUM8SDc9Pjv/2wBDAQoLCw4NDhwQEBw7KCIoOzs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozv/wAARCABgAGADASIAAhEBAxEB/8QAHwAAAQUBAQEBAQEAAAAAAAAAAAECAwQFBgcICQoL/8QAtRAAAgEDAwIEAwUFBAQAAAF9AQIDAAQRBRIhMUEGE1FhByJxFDKBkaEII0KxwRVS0fAkM2JyggkKFhcYGRolJicoKSo0NTY3ODk6Q0RFRkdISUpTVFVWV1hZWmNkZWZnaGlqc3R1dnd4eXqDhIWGh4iJipKTlJWWl5iZmqKjpKWmp6ipqrKztLW2t7i5usLDxMXGx8jJytLT1NXW19jZ2uHi4+Tl5ufo6erx8vP09fb3+Pn6/8QAHwEAAwEBAQEBAQEBAQAAAAAAAAECAwQFBgcICQoL/8QAtREAAgECBAQDBAcFBAQAAQJ3AAECAxEEBSExBhJBUQdhcRMiMoEIFEKRobHBCSMzUvAVYnLRChYkNOEl8RcYGRomJygpKjU2Nzg5OkNERUZHSElKU1RVVldYWVpjZGVmZ2hpanN0dXZ3eHl6goOEhYaHiImKkpOUlZaXmJmaoqOkpaanqKmqsrO0tba3uLm6wsPExcbHyMnK0tPU1dbX2Nna4uPk5ebn6Onq8vP09fb3+Pn6/9oADAMBAAIRAxEAPwD2CiiiucYUUUUAFFFUL7XdL01it3exRuCAUB3MMjPKjJHFJtJXYF+iqS6zpr3j2f2yJZ0KgxudpJboBnr+FXaE09gCiiimAUUUUAFFFFABRRVPV74aZpNzeEqDFGSm4Egt0UHHqSBSbSV2Bzvi/wAUvYs+l2DMtwQPNl6eWCM4X3IPXt9enAu7yyNJI7O7klmY5JJ6kmnTzSXM8k8rbpJWLu2MZJOTUdeLVqupK7OiKsjW8T/8jDdf8A/9AFb3hLxbN56abqUjzCVtsMzEswYn7rdyCeh7fTpg+J/+Rhuv+Af+gCsmrdSVOq2u7JirwR7dRWT4Y1V9X0SK4mdWnUmOUquPmH+IIPHHP4VrV60ZKSTRi1YKKKKoAooooAK4/wCIlztsLO12Z8yVpN2em0Yxj/gf6V2FeefEJ3OtW8Zdii2wIXPAJZsnH4D8hXPiXakyobnKUUUV45ua3if/AJGG6/4B/wCgCsmtbxP/AMjDdf8AAP8A0AVk1pV/iS9WTD4Udh8O7nbf3lrsz5kSybs9NpxjH/A/0rvq8v8ABbunim1VXZQ4cMAcbhsJwfxAP4V6hXpYR3p27Gc9wooorqICiiigArzv4hf8h6D/AK9V/wDQmr0SuN+Itu7WllcgrsjkaMjvlgCP/QT+lc2KV6TKhucHRRRXkG5reJ/+Rhuv+Af+gCsmtbxP/wAjDdf8A/8AQBWTWlX+JL1ZMPhRueDf+Rqs/wDgf/oDV6lXAfDu3dtTu7kFdkcIjI75Ygj/ANBP6V39ejhFamZz3CiiiusgKKKKACs7X9NXVdGuLbZvk2losYzvHIwT0z0+hNaNFKSUlZgeJujxSNHIjI6EhlYYII6gim12njPwzIssur2S7kb5p41HKHu4x1Hc985Prji68SpTdOVmdCd0a3if/kYbr/gH/oArJrW8T/8AIw3X/AP/AEAVoeEvDMmpzpf3S7bOJsgMM+cQemD/AA+p/D1xcoOdVxXdkxdoI6vwhpR0zREM0LRXM5LyhwNw/uj8ucHoSa3aKK9eEVGKijFu7CiiiqAKKKKACiiigArE1LwhpGpyvM8TwzSNueSFsFj9Dkc9emc1t0VMoxkrSQJtGHH4Y0u6um1G6haeWQqdrt8q7eOAOucDOc1uU2OMRIEXOB606hRS2QleyTCiiiqGFFFFAH//2Q==",
    ]
}
