import Foundation
import Hummingbird
import PlantGuideCore

/// Installing and removing on-device models from Settings, and the download's progress for the page and the API.
/// Installing and removing change what every household uses, so with accounts only the installation's owner may.
struct ModelRoutes {
    let installs: ModelInstallCapability?

    /// The largest checkpoint a browser may upload (1 GiB): the PlantNet-300K checkpoints are 45 to 360 MB.
    static let uploadLimit = 1 << 30

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
        // A checkpoint from the browser: the body is the file (the page's script sends it with the token in a header),
        // written to disk as it arrives, never held whole, then imported and made the default once whole and checked.
        router.put("/settings/model/upload") { request, context in
            try RequestGate.requireInstallationOwner(context)
            let installs = try require()
            let name = request.queryValue("name") ?? "checkpoint.tar"
            let file = installs.uploadFile()
            try await Self.receive(request.body, into: file)
            let model = try await installs.installUpload(file, name)
            return JSONResponse.make(UploadAnswer(model: model), status: .created)
        }
        router.get("/api/model/install") { _, _ in JSONResponse.make(try require().status()) }
        router.post("/api/model/install") { request, context in
            try RequestGate.requireInstallationOwner(context)
            let body = try await request.decodeJSON(as: InstallBody.self, context: context)
            return JSONResponse.make(try require().start(body.architecture), status: .accepted)
        }
    }

    /// What an upload installed.
    struct UploadAnswer: Encodable {
        var model: String
    }

    /// Writes `body` to `file` chunk by chunk, refusing (and removing) more than ``uploadLimit`` bytes or an empty body.
    static func receive(_ body: RequestBody, into file: URL) async throws {
        try? FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        guard FileManager.default.createFile(atPath: file.path, contents: nil), let handle = try? FileHandle(forWritingTo: file) else {
            throw ServerError.failed("The upload could not be stored on the server.")
        }
        var written = 0
        do {
            defer { try? handle.close() }
            for try await buffer in body {
                written += buffer.readableBytes
                guard written <= uploadLimit else { throw ServerError.payloadTooLarge(limit: uploadLimit) }
                do {
                    try handle.write(contentsOf: buffer.readableBytesView)
                } catch {
                    throw ServerError.failed("The upload could not be stored on the server (disk full?).")
                }
            }
            guard written > 0 else { throw ServerError.badRequest("The upload is empty: choose a checkpoint file.") }
        } catch {
            try? FileManager.default.removeItem(at: file)
            throw error
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
