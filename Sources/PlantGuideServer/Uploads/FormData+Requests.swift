import Foundation
import PlantForms
import PlantGuideCore

extension FormData {
    /// The form encoding of a request's `Content-Type`, a malformed one answered as ``ServerError/badRequest(_:)``.
    static func requestEncoding(of contentType: String?) throws(ServerError) -> Encoding? {
        do throws(FormError) { return try encoding(of: contentType) } catch { throw ServerError(error) }
    }

    /// Parses a request body of a known form encoding; a large one (a photo upload is megabytes) on the work pool, so
    /// the threads serving other requests stay free. Parsing is linear in the body either way.
    static func parseOffRequestThreads(_ encoding: Encoding, body: Data) async throws -> FormData {
        let parse = { @Sendable () throws(ServerError) -> FormData in
            do throws(FormError) { return try FormData.parse(encoding, body: body) } catch { throw ServerError(error) }
        }
        guard body.count > 256 * 1024 else { return try parse() }
        return try await WorkPool.shared.run { try parse() }
    }
}

extension FormData {
    /// The photos of an upload (fields `photo` or `images`) and their formats, checked by ``PhotoUploadRules``: no photo
    /// or too many is a bad request (400), an empty file cannot be used (422), a file that is no photo is refused
    /// (415). A file input left empty sends a part with no file name and no bytes (the camera input beside a chosen
    /// library photo, without JavaScript): that is no photo, not a bad one.
    func photos() throws(ServerError) -> (files: [File], formats: [ImageFormat]) {
        let files = self.files.filter { ($0.field == "photo" || $0.field == "images") && !($0.data.isEmpty && $0.filename.isEmpty) }
        do {
            return (files, try PhotoUploadRules.check(files.map { ($0.filename, $0.data) }))
        } catch {
            switch error {
            case .noPhoto, .tooMany: throw .badRequest(error.description)
            case .empty: throw .unprocessable(error.description)
            case .notAPhoto(let name): throw .unsupportedImage("“\(name)” is not a photo")
            }
        }
    }
}
