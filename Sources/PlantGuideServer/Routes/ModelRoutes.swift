import Foundation
import Hummingbird
import PlantGuideCore

/// Installing and removing on-device models from Settings, and the download's progress for the page and the API.
/// Installing and removing change what every household uses, so with accounts only the installation's owner may.
struct ModelRoutes {
    let installs: ModelInstallCapability?

    func register(on router: Router<AppRequestContext>) {
        router.post("/settings/model/install") { request, context in
            try RequestGate.requireInstallationOwner(context)
            let form = try await request.formData(context: context, limit: InputLimits.formBodyBytes)
            _ = try require().start(form["architecture"] ?? "")
            return Response.redirect(to: "/settings#model", type: .normal)
        }
        router.post("/settings/model/cancel") { _, context in
            try RequestGate.requireInstallationOwner(context)
            try require().cancel()
            return Response.redirect(to: "/settings#model", type: .normal)
        }
        router.post("/settings/model/remove") { request, context in
            try RequestGate.requireInstallationOwner(context)
            let form = try await request.formData(context: context, limit: InputLimits.formBodyBytes)
            try require().remove(form["model"] ?? "")
            return Response.redirect(to: "/settings#model", type: .normal)
        }
        router.get("/api/model/install") { _, _ in JSONResponse.make(try require().status()) }
        router.post("/api/model/install") { request, context in
            try RequestGate.requireInstallationOwner(context)
            let body = try await request.decodeJSON(as: InstallBody.self, context: context)
            return JSONResponse.make(try require().start(body.architecture), status: .accepted)
        }
    }

    /// `POST /api/model/install`'s body.
    struct InstallBody: Decodable {
        var architecture: String
    }

    private func require() throws -> ModelInstallCapability {
        guard let installs else { throw ServerError.capabilityMissing("This server cannot install on-device models.") }
        return installs
    }
}
