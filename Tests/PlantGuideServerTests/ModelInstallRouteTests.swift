import Foundation
import Hummingbird
import HTTPTypes
import HummingbirdTesting
import PlantClassifier
import PlantGuideCore
import PlantGuideTestSupport
import Testing
@testable import PlantGuideServer

/// Installing the on-device model from the web app, with the live wiring against a loopback mirror that sends slowly:
/// progress while it runs, one install at a time, stop and resume, then identification on the device.
@Suite struct ModelInstallRouteTests {
    static let checkpoint = LiveDependenciesTests.testsFolder.appendingPathComponent("PlantClassifierTests/Fixtures/tiny-resnet18.pth")

    /// The status as `GET /api/model/install` gives it.
    private func status(_ client: some TestClientProtocol) async throws -> [String: Any] {
        try await client.execute(uri: "/api/model/install", method: .get) { response in
            #expect(response.status == .ok)
            return try #require(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
        }
    }

    private func waitUntil(
        _ client: some TestClientProtocol, seconds: Double = 30, _ done: ([String: Any]) -> Bool
    ) async throws -> [String: Any] {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            let current = try await status(client)
            if done(current) || Date() > deadline { return current }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    @Test func settingsDownloadsShowsProgressStopsResumesAndThenIdentifiesOnTheDevice() async throws {
        let weights = try Data(contentsOf: Self.checkpoint)
        let server = try LoopbackFileServer(
            files: ["/mirror/resnet18_weights_best_acc.tar": weights], options: .init(bytesPerSecond: 120_000)
        )
        defer { server.stop() }
        let offline = try RefusingPort()
        defer { offline.release() }
        let home = try LiveDependenciesTests.makeHome(withModel: false)
        defer { try? FileManager.default.removeItem(at: home) }
        let dependencies = await ServerDependencies.live(dataDirectory: home, environment: [
            ModelSource.mirrorVariable: server.url("/mirror/").absoluteString, ModelSource.zenodoVariable: offline.url.absoluteString,
        ])
        #expect(dependencies.identification == nil)
        try await makeApp(dependencies: dependencies).test(.router) { client in
            let session = try await Session.open(client)
            // Identify offers the download and a key in its place.
            try await client.execute(uri: "/identify", method: .get) { response in
                #expect(response.text.contains("Download the on-device model (ResNet50)"))
                #expect(response.text.contains("Paste a free Pl@ntNet API key"))
            }
            let (headers, body) = session.form([("architecture", "resnet18")])
            try await client.execute(uri: "/settings/model/install", method: .post, headers: headers, body: body) { response in
                #expect(response.status == .seeOther)
            }
            let running = try await waitUntil(client) { ($0["receivedBytes"] as? Int ?? 0) > 40_000 }
            #expect(running["state"] as? String == "downloading")
            #expect(running["totalBytes"] as? Int == weights.count)
            #expect((running["text"] as? String)?.hasPrefix("Downloading ResNet18: ") == true)
            // A second request while one runs starts nothing and answers the running one.
            var json = session.headers
            json[.contentType] = "application/json"
            json[RequestGate.csrfHeader] = session.csrf
            try await client.execute(
                uri: "/api/model/install", method: .post, headers: json, body: ByteBuffer(string: #"{"architecture": "resnet50"}"#)
            ) { response in
                #expect(response.status == .accepted)
                #expect(response.text.contains(#""architecture":"resnet18""#))
            }
            // The page shows the progress bar and a way to stop.
            try await client.execute(uri: "/settings", method: .get) { response in
                #expect(response.text.contains("data-model-install"))
                #expect(response.text.contains("<progress max=\"\(weights.count)\""))
                #expect(response.text.contains("Stop the download"))
            }
            let (stopHeaders, stopBody) = session.form([])
            try await client.execute(uri: "/settings/model/cancel", method: .post, headers: stopHeaders, body: stopBody) { response in
                #expect(response.status == .seeOther)
            }
            let stopped = try await waitUntil(client) { $0["state"] as? String == "cancelled" }
            #expect(stopped["state"] as? String == "cancelled")
            #expect(ModelStore(dataDirectory: DataDirectory(url: home)).defaultModel() == nil)

            // Again: it resumes where it stopped, installs, and the model answers.
            try await client.execute(uri: "/settings/model/install", method: .post, headers: headers, body: body) { response in
                #expect(response.status == .seeOther)
            }
            let finished = try await waitUntil(client) { ["installed", "failed"].contains($0["state"] as? String ?? "") }
            #expect(finished["state"] as? String == "installed", "\(finished)")
            let ranges = server.requests.filter { $0.path == "/mirror/resnet18_weights_best_acc.tar" }.map(\.range)
            #expect(ranges.count == 2 && ranges[0] == nil && ranges[1]?.hasPrefix("bytes=") == true, "\(ranges)")
            try await client.execute(uri: "/settings", method: .get) { response in
                #expect(response.text.contains("Installed and in use"))
                #expect(response.text.contains("Download ResNet18 again"))
            }
            #expect(dependencies.identification?.strategies.contains(.onDevice) == true)
            var form = Multipart()
            form.file("photo", "leaf.jpg", try Data(contentsOf: LiveDependenciesTests.testsFolder.appendingPathComponent("Browser/Fixtures/leaf.jpg")))
            form.field("strategy", "on-device")
            let (identifyHeaders, identifyBody) = session.multipart(form)
            let answer = try await client.execute(uri: "/api/identify", method: .post, headers: identifyHeaders, body: identifyBody) { response in
                #expect(response.status == .ok, "\(response.text)")
                return try JSONDecoder().decode(IdentifyResultBody.self, from: Data(buffer: response.body))
            }
            #expect(answer.source == "onDevice")
            // The model in use cannot be removed; an unknown one is refused.
            for (name, message) in [("resnet18-plantnet300k.pgmodel", "in use"), ("other.pgmodel", "no installed model")] {
                let (removeHeaders, removeBody) = session.form([("model", name)])
                try await client.execute(uri: "/settings/model/remove", method: .post, headers: removeHeaders, body: removeBody) { response in
                    #expect(response.status == .badRequest)
                    #expect(response.text.contains(message), "\(response.text)")
                }
            }
        }
    }
}
