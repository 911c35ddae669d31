import Foundation
import Hummingbird
import PlantGuideCore

/// The Settings page and API: key status (never the key), quota, cache and model facts.
struct SettingsRoutes {
    let settings: SettingsCapability?
    let identification: IdentificationCapability?

    func register(on router: Router<AppRequestContext>) {
        router.get("/settings") { request, context in
            let saved = request.uri.queryParameters["saved"] == "1"
            return Response.html(Pages.settings(try await facts(), saved: saved, context: context))
        }
        router.post("/settings/api-key") { request, context in
            let form = try await request.formData(context: context, limit: InputLimits.formBodyBytes)
            try await replace(form["apiKey"])
            return Response.redirect(to: "/settings?saved=1", type: .normal)
        }
        router.get("/api/settings") { _, _ in JSONResponse.make(try await facts()) }
        router.put("/api/settings/api-key") { request, context in
            let body = try await request.decodeJSON(as: APIKeyBody.self, context: context)
            try await replace(body.apiKey)
            return Response(status: .noContent)
        }
    }

    private func replace(_ key: String?) async throws {
        guard let settings else { throw ServerError.capabilityMissing("Storing an API key is not available in this build yet.") }
        let key = (key ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard (8...200).contains(key.count), key.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else {
            throw ServerError.badRequest("That does not look like a Pl@ntNet API key (letters and digits, as shown on my.plantnet.org).")
        }
        try await settings.replaceAPIKey(key)
    }

    private func facts() async throws -> SettingsBody {
        guard let settings else {
            return SettingsBody(available: false, apiKeySet: nil, quota: nil, cache: [], model: [], identification: identification?.summary)
        }
        return SettingsBody(
            available: true, apiKeySet: await settings.apiKeyIsSet(), quota: await settings.quota(),
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
    var quota: QuotaStatus?
    var cache: [Row]
    var model: [Row]
    var identification: String?
}

/// `PUT /api/settings/api-key`.
struct APIKeyBody: Codable, Sendable {
    var apiKey: String
}
