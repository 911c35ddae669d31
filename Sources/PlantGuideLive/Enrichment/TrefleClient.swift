import AsyncHTTPClient
import Foundation
import PlantGuideCore
import PlantHTTP
import PlantStore

/// Growth facts Trefle publishes for a species (scales as Trefle documents them).
public struct TrefleGrowth: Sendable, Hashable, Codable {
    /// Light needs, 0 (none) to 10 (full sun).
    public var light: Int?
    /// Air humidity needs, 0 (≤ 10 %) to 10 (≥ 90 %).
    public var atmosphericHumidity: Int?
    /// Lowest tolerated temperature, °C.
    public var minimumTemperature: Double?
    /// Highest tolerated temperature, °C.
    public var maximumTemperature: Double?

    /// Describes growth facts.
    public init(light: Int?, atmosphericHumidity: Int?, minimumTemperature: Double?, maximumTemperature: Double?) {
        self.light = light
        self.atmosphericHumidity = atmosphericHumidity
        self.minimumTemperature = minimumTemperature
        self.maximumTemperature = maximumTemperature
    }
}

/// Why Trefle enrichment failed. Never fatal: callers keep the care guide's profile.
public enum TrefleError: Error, Sendable, CustomStringConvertible, Equatable {
    case unauthorized
    case unavailable(String)
    case malformed(String)

    public var description: String {
        switch self {
        case .unauthorized: "Trefle refused the token (check TREFLE_TOKEN)."
        case .unavailable(let reason): "Trefle is unavailable (\(reason)); using PlantGuide's own care guide."
        case .malformed(let reason): "Trefle sent an answer PlantGuide cannot read (\(reason))."
        }
    }
}

/// A small client for the Trefle plant API (`/api/v1/plants/search`, `/api/v1/species/{slug}`), used
/// to refine care profiles when a token is configured. The token is sent as a query parameter and
/// never appears in errors.
public struct TrefleClient: Sendable {
    /// The service root; overridable so tests can use a local stub.
    public let baseURL: URL
    private let token: String
    private let timeout: Duration
    private let http: HTTPClient

    /// The public service.
    public static let defaultBaseURL = URL(string: "https://trefle.io")
    /// The largest answer read.
    static let maximumAnswerBytes = 4 * 1_048_576

    /// A client with a token; `baseURL` defaults to the public service.
    /// - Parameters:
    ///   - timeout: seconds a request may go without progress (no answer, no bytes of it); Trefle is often down or
    ///     slow, so the default is short rather than holding up the command.
    ///   - http: the HTTP client requests go through.
    public init(
        token: String, baseURL: URL? = nil, timeout: TimeInterval = 5, http: HTTPClient = OutgoingHTTP.processClient
    ) throws(TrefleError) {
        guard let url = baseURL ?? Self.defaultBaseURL else { throw .unavailable("no base URL") }
        self.baseURL = url
        self.token = token
        self.timeout = .milliseconds(Int64((max(timeout, 0.001) * 1000).rounded()))
        self.http = http
    }

    /// Growth facts for a species, or `nil` when Trefle does not know it.
    public func growth(forScientificName name: String) async throws(TrefleError) -> TrefleGrowth? {
        let search: SearchAnswer = try await get("/api/v1/plants/search", query: ["q": name])
        let wanted = ScientificName(parsing: name).binomial.lowercased()
        guard let hit = search.data.first(where: { ($0.scientific_name ?? "").lowercased() == wanted }) ?? search.data.first,
              let slug = hit.slug, !slug.isEmpty, slug.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" })
        else { return nil }
        let species: SpeciesAnswer = try await get("/api/v1/species/\(slug)", query: [:])
        guard let growth = species.data.growth else { return nil }
        return TrefleGrowth(
            light: growth.light, atmosphericHumidity: growth.atmospheric_humidity,
            minimumTemperature: growth.minimum_temperature?.deg_c, maximumTemperature: growth.maximum_temperature?.deg_c
        )
    }

    private func get<Answer: Decodable>(_ path: String, query: [String: String]) async throws(TrefleError) -> Answer {
        guard var components = URLComponents(url: baseURL.appendingPathComponent(path), resolvingAgainstBaseURL: false) else {
            throw .unavailable("bad base URL")
        }
        components.queryItems = query.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
            + [URLQueryItem(name: "token", value: token)]
        guard let url = components.url else { throw .unavailable("bad request URL") }
        var request = HTTPClientRequest(url: url.absoluteString)
        request.headers.add(name: "Accept", value: "application/json")
        let answer: HTTPAnswer
        do {
            answer = try await http.fetch(request, timeout: timeout, limit: Self.maximumAnswerBytes)
        } catch {
            // Only the failure's class: a library's description could include the URL, and so the token.
            let reason = switch HTTPFailure(error) {
            case .timedOut: "timed out"
            case .cancelled: "cancelled"
            case .tooLarge: "answer too large"
            case .unreachable: "cannot connect"
            }
            throw .unavailable("network error: \(reason)")
        }
        let data = answer.body
        switch answer.status {
        case 200: break
        case 401, 403: throw .unauthorized
        default: throw .unavailable("HTTP \(answer.status)")
        }
        do {
            return try JSONDecoder().decode(Answer.self, from: data)
        } catch {
            throw .malformed("unexpected JSON")
        }
    }

    // Wire types, named as Trefle names its fields.
    private struct SearchAnswer: Decodable {
        struct Hit: Decodable {
            var slug: String?
            var scientific_name: String?
        }

        var data: [Hit]
    }

    private struct SpeciesAnswer: Decodable {
        struct Species: Decodable {
            var growth: Growth?
        }

        struct Growth: Decodable {
            var light: Int?
            var atmospheric_humidity: Int?
            var minimum_temperature: Temperature?
            var maximum_temperature: Temperature?
        }

        struct Temperature: Decodable {
            var deg_c: Double?
        }

        var data: Species
    }
}

extension CareProfile {
    /// This profile with Trefle's light, humidity and temperatures where Trefle has plausible values.
    /// Watering, feeding and toxicity stay PlantGuide's own.
    public func enriched(with growth: TrefleGrowth) -> CareProfile {
        var profile = self
        var used = false
        if let light = growth.light, (0...10).contains(light) {
            profile.light = switch light {
            case ...3: .low
            case 4...5: .medium
            case 6...7: .brightIndirect
            default: .directSun
            }
            used = true
        }
        if let humidity = growth.atmosphericHumidity, (0...10).contains(humidity) {
            profile.humidity = humidity <= 3 ? .low : humidity <= 6 ? .medium : .high
            used = true
        }
        if let low = growth.minimumTemperature, let high = growth.maximumTemperature,
           (-20...50).contains(low), (-20...50).contains(high), low < high {
            // Houseplants live indoors: never advise a range beyond what a room offers.
            profile.minTemperature = max(Int(low.rounded()), 0)
            profile.maxTemperature = min(Int(high.rounded()), 40)
            if profile.minTemperature >= profile.maxTemperature {
                profile.minTemperature = minTemperature
                profile.maxTemperature = maxTemperature
            }
            used = true
        }
        if used { profile.basis += " + Trefle" }
        return profile
    }
}

extension PlantCollection {
    /// Refines a plant's care profile with Trefle's growth facts. Failures are returned, not
    /// thrown: the plant keeps the care guide's profile and nothing else is affected.
    /// - Returns: `nil` on success or when there is nothing to refine; the error otherwise.
    @discardableResult
    public func enrichCareProfile(ofPlant id: Int64, client: TrefleClient) async -> (any Error)? {
        do {
            let details = try await store.details(ofPlant: id)
            guard let species = details.plant.species, let profile = details.profile,
                  !profile.basis.hasSuffix("+ Trefle")
            else { return nil }
            guard let growth = try await client.growth(forScientificName: species) else { return nil }
            let enriched = profile.enriched(with: growth)
            if enriched != profile { try await store.setProfile(enriched, forPlant: id) }
            return nil
        } catch {
            return error
        }
    }
}
