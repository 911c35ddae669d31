import Foundation
import Hummingbird
import PlantGuideCore
import PlantNetAPI

/// The Settings page and API: key status (never the key), quota, cache and model facts.
struct SettingsRoutes {
    let settings: SettingsCapability?
    let currentIdentification: CurrentIdentification

    /// Read per request: saving a key replaces it.
    private var identification: IdentificationCapability? { currentIdentification.capability }

    func register(on router: Router<AppRequestContext>) {
        router.get("/settings") { request, context in
            let saved = request.queryValue("saved") == "1"
            return Response.html(Pages.settings(try await facts(), saved: saved, context: context))
        }
        router.post("/settings/api-key") { request, context in
            let form = try await request.formData(context: context, limit: InputLimits.formBodyBytes)
            try await replace(form["apiKey"], trimming: true)
            return Response.redirect(to: "/settings?saved=1", type: .normal)
        }
        router.get("/api/settings") { _, _ in JSONResponse.make(try await facts()) }
        router.put("/api/settings/api-key") { request, context in
            let body = try await request.decodeJSON(as: APIKeyBody.self, context: context)
            try await replace(body.apiKey, trimming: false)
            return Response(status: .noContent)
        }
    }

    /// The lengths of a Pl@ntNet API key, as the OpenAPI document states them.
    static let apiKeyLengths = 8...200

    /// Whether `key` looks like a Pl@ntNet API key: ASCII letters, digits, `-` and `_`, of ``apiKeyLengths``
    /// (the `apiKey` pattern of the OpenAPI document, so both judge a key alike).
    static func isAPIKey(_ key: String) -> Bool {
        apiKeyLengths.contains(key.utf8.count)
            && key.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || $0 == 0x2D || $0 == 0x5F }
    }

    /// Stores the key. The settings form drops the spaces a paste brings along; the API takes the key as sent,
    /// as its schema says.
    private func replace(_ key: String?, trimming: Bool) async throws {
        guard let settings else { throw ServerError.capabilityMissing("Storing an API key is not available in this build yet.") }
        var key = key ?? ""
        if trimming { key = key.trimmingCharacters(in: .whitespacesAndNewlines) }
        guard Self.isAPIKey(key) else {
            throw ServerError.badRequest("That does not look like a Pl@ntNet API key (letters and digits, as shown on my.plantnet.org).")
        }
        try await settings.replaceAPIKey(key)
    }

    private func facts() async throws -> SettingsBody {
        guard let settings else {
            return SettingsBody(
                available: false, apiKeySet: nil, apiKeySource: nil, quota: nil, cache: [], model: [],
                identification: identification?.summary
            )
        }
        let source = await settings.apiKeySource()
        return SettingsBody(
            available: true, apiKeySet: source != nil, apiKeySource: source, quota: await settings.quota(),
            cache: await settings.cacheStatistics().map { SettingsBody.Row(label: $0.label, value: $0.value) },
            model: await settings.modelInfo().map { SettingsBody.Row(label: $0.label, value: $0.value) },
            identification: identification?.summary
        )
    }
}

/// `GET /api/settings`.
struct SettingsBody: Codable, Sendable {
    struct Row: Codable, Sendable {
        var label: String
        var value: String
    }

    var available: Bool
    var apiKeySet: Bool?
    /// Where the key in use comes from (never the key itself).
    var apiKeySource: APIKeySource?
    var quota: QuotaStatus?
    var cache: [Row]
    var model: [Row]
    var identification: String?
}

/// `PUT /api/settings/api-key`.
struct APIKeyBody: Codable, Sendable {
    var apiKey: String
}
