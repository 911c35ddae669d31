import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import PlantClassifier
import PlantGuideCore
import PlantGuideTestSupport
import PlantIdentification
import Testing
@testable import PlantGuideServer

/// Installing the on-device model from the web app, with the live wiring against a loopback mirror that holds the
/// first download midway (so that stopping it never races its end):
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
            files: ["/mirror/resnet18_weights_best_acc.tar": weights], options: .init(pauseAfter: 65_536)
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
            server.proceed()
            #expect(stopped["state"] as? String == "cancelled")
            #expect(ModelStore(dataDirectory: DataDirectory(url: home)).defaultModel() == nil)
            try await client.execute(uri: "/settings", method: .get) { response in
                #expect(response.text.contains("Resume ResNet18 ("), "the part kept is offered to resume")
            }

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
                return try JSONDecoder().decode(IdentifyAnswer.self, from: Data(buffer: response.body))
            }
            #expect(answer.source == .onDevice)
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

    /// A checkpoint uploaded from the browser: streamed to disk, imported, made the default; a wrong one, an empty one,
    /// one without the token or announcing more than the limit is refused and nothing changes.
    @Test func anUploadedCheckpointIsInstalledAndABadOneRefused() async throws {
        let home = try LiveDependenciesTests.makeHome(withModel: false)
        defer { try? FileManager.default.removeItem(at: home) }
        let dependencies = await ServerDependencies.live(dataDirectory: home, environment: [:])
        let store = ModelStore(dataDirectory: DataDirectory(url: home))
        try await makeApp(dependencies: dependencies).test(.router) { client in
            let session = try await Session.open(client)
            try await client.execute(uri: "/settings", method: .get) { response in
                #expect(response.text.contains("data-model-upload hidden"))
                #expect(response.text.contains("<noscript>"))
            }
            var headers = session.headers
            headers[RequestGate.csrfHeader] = session.csrf
            headers[.contentType] = "application/octet-stream"
            headers[.accept] = "application/json"
            let wrong = try Data(contentsOf: LiveDependenciesTests.testsFolder.appendingPathComponent("PlantClassifierTests/Fixtures/tiny-resnet34.pth"))
            for (name, body, status, message) in [
                ("resnet34_weights_best_acc.tar", wrong, HTTPResponse.Status.badRequest, "was not installed"),
                ("resnet18_weights_best_acc.tar", Data(), .badRequest, "The upload is empty"),
            ] {
                try await client.execute(
                    uri: "/settings/model/upload?name=\(name)", method: .put, headers: headers, body: ByteBuffer(bytes: body)
                ) { response in
                    #expect(response.status == status, "\(name): \(response.text)")
                    #expect(response.text.contains(message), "\(response.text)")
                }
            }
            // Its body limit is its own (the gate's 413 on a larger Content-Length is tested for every route it guards).
            #expect(RequestGate.isModelUpload("//settings/model/upload/") && !RequestGate.isModelUpload("/settings/model"))
            #expect(ModelRoutes.uploadLimit == 1 << 30)
            var noToken = headers
            noToken[RequestGate.csrfHeader] = nil
            try await client.execute(
                uri: "/settings/model/upload?name=x.tar", method: .put, headers: noToken, body: ByteBuffer(bytes: wrong)
            ) { response in
                #expect(response.status == .forbidden)
            }
            #expect(store.defaultModel() == nil)
            #expect(((try? FileManager.default.contentsOfDirectory(atPath: store.downloads.path)) ?? []).filter { $0.hasPrefix("upload-") }.isEmpty)

            let weights = try Data(contentsOf: Self.checkpoint)
            try await client.execute(
                uri: "/settings/model/upload?name=resnet18_weights_best_acc.tar", method: .put, headers: headers, body: ByteBuffer(bytes: weights)
            ) { response in
                #expect(response.status == .created, "\(response.text)")
                #expect(response.text.contains(#""model":"resnet18-plantnet300k.pgmodel""#))
            }
            #expect(store.defaultModel()?.lastPathComponent == "resnet18-plantnet300k.pgmodel")
            #expect(dependencies.identification?.strategies.contains(.onDevice) == true)
        }
    }
}
