import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import PlantGuideCore
import PlantIdentification
import PlantImaging
import Testing
@testable import PlantGuideServer

/// A photo the decoder refuses is the client's fault, answered with the decoder's message; a source that is
/// not configured is said to be so, never "offline". Runs the live wiring with the tiny fixture model.
@Suite struct PhotoErrorRouteTests {
    static let hostilePhotos = LiveDependenciesTests.testsFolder.appendingPathComponent("PlantImagingTests/Fixtures/hostile")

    @Test func badPhotosAreTheClientsFaultWithTheDecodersMessage() async throws {
        let home = try LiveDependenciesTests.makeHome(withModel: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let maximumPixels = DecodeLimits.default.maximumPixels
        let cases: [(String, HTTPResponse.Status, String)] = [
            ("truncated.jpg", .unprocessableContent, ImagingError.truncated(.jpeg).description),
            ("truncated.png", .unprocessableContent, ImagingError.truncated(.png).description),
            ("tiny.png", .unprocessableContent, ImagingError.tooSmall(width: 48, height: 40, minimumShortSide: 64).description),
            ("bomb.png", .contentTooLarge, ImagingError.tooLarge(width: 100_000, height: 100_000, maximumPixels: maximumPixels).description),
            ("bomb.jpg", .contentTooLarge, ImagingError.tooLarge(width: 65_000, height: 65_000, maximumPixels: maximumPixels).description),
        ]
        try await makeApp(dependencies: .live(dataDirectory: home, environment: [:])).test(.router) { client in
            let session = try await Session.open(client)
            for (name, status, message) in cases {
                var form = Multipart()
                form.file("photo", name, try Data(contentsOf: Self.hostilePhotos.appendingPathComponent(name)))
                let (headers, body) = session.multipart(form)
                try await client.execute(uri: "/api/identify", method: .post, headers: headers, body: body) { response in
                    #expect(response.status == status, "\(name)")
                    try #expect(response.errorBody().message == message, "\(name)")
                }
            }
        }
    }

    @Test func plantNetWithoutAKeyIsNotConfiguredNotOffline() async throws {
        let home = try LiveDependenciesTests.makeHome(withModel: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let photo = try Data(contentsOf: LiveDependenciesTests.testsFolder.appendingPathComponent("Browser/Fixtures/leaf.jpg"))
        try await makeApp(dependencies: .live(dataDirectory: home, environment: [:])).test(.router) { client in
            let session = try await Session.open(client)
            var asked = Multipart()
            asked.file("photo", "leaf.jpg", photo)
            asked.field("strategy", "plantnet")
            let (headers, body) = session.multipart(asked)
            try await client.execute(uri: "/api/identify", method: .post, headers: headers, body: body) { response in
                #expect(response.status == .notImplemented)
                let message = try response.errorBody().message
                #expect(message.contains("not configured"))
                #expect(!message.contains("offline") && !message.contains("reached"))
            }
            var automatic = Multipart()
            automatic.file("photo", "leaf.jpg", photo)
            let (autoHeaders, autoBody) = session.multipart(automatic)
            try await client.execute(uri: "/api/identify", method: .post, headers: autoHeaders, body: autoBody) { response in
                #expect(response.status == .ok)
                let result = try JSONDecoder().decode(IdentifyAnswer.self, from: Data(buffer: response.body))
                #expect(result.source == .onDevice)
                #expect(result.offline == false)
            }
        }
    }
}
