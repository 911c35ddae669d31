import Foundation
import HTTPTypes
import HummingbirdTesting
import PlantClassifier
import PlantGuideCore
import PlantGuideTestSupport
import PlantIdentification
import Testing
@testable import PlantGuideServer

/// `plantguide identify --json` and `POST /api/identify` answer one object, `IdentifyAnswer`, which the OpenAPI
/// document describes once: the same photo through the same model and the same Pl@ntNet stand-in gives the same keys
/// and the same answer from both, and each matches the document.
@Suite struct IdentifyAnswerContractTests {
    static let leaf = LiveDependenciesTests.testsFolder.appendingPathComponent("Browser/Fixtures/leaf.jpg")

    static func schema() throws -> (SchemaCheck, [String: Any]) {
        let document = try OpenAPIDocumentTests.document()
        let schemas = try #require((document["components"] as? [String: Any])?["schemas"] as? [String: Any])
        return (SchemaCheck(document: document), try #require(schemas["IdentifyAnswer"] as? [String: Any]))
    }

    /// With Pl@ntNet set up (the device is unsure, so both answer) and without it (the device alone; no quota to speak of).
    @Test(arguments: [true, false])
    func theCommandLineAndTheAPIAnswerTheSameDocumentedObject(withPlantNet: Bool) async throws {
        let stub = try await PlantNetStub.start()
        defer { Task { await stub.stop() } }
        let environment = withPlantNet ? ["PLANTNET_API_KEY": "stub-key", "PLANTGUIDE_PLANTNET_URL": stub.baseURL.absoluteString] : [:]
        let checkpoint = LiveDependenciesTests.testsFolder.appendingPathComponent("PlantClassifierTests/Fixtures/tiny-resnet18.pth")

        // The command line, with the tiny model installed: unsure, so on-device-first asks Pl@ntNet too.
        let cli = try CommandLineRunner(environment: environment)
        defer { cli.cleanUp() }
        _ = try ModelStore(dataDirectory: DataDirectory(url: cli.home)).install(checkpoint: checkpoint, options: .init(architecture: .resnet18))
        // A collection, as the server always has one: both then say which of its plants the photo shows (none).
        #expect(try cli.run(["collection", "add", "Monstera deliciosa"]).status == 0)
        let run = try cli.run(["identify", Self.leaf.path, "--strategy", "on-device-first", "--organ", "leaf", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let printed = try #require(try run.json() as? [String: Any], "\(run.stdout)")

        // The server, with the same model and the stand-in: the API's `auto` is on-device-first when a model is installed.
        let home = try LiveDependenciesTests.makeHome(withModel: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let dependencies = await ServerDependencies.live(dataDirectory: home, environment: environment)
        let answered: [String: Any] = try await makeApp(dependencies: dependencies).test(.router) { client in
            let session = try await Session.open(client)
            var form = Multipart()
            form.file("photo", "leaf.jpg", try Data(contentsOf: Self.leaf))
            form.field("organ", "leaf")
            form.field("strategy", "auto")
            let (headers, body) = session.multipart(form)
            return try await client.execute(uri: "/api/identify", method: .post, headers: headers, body: body) { response in
                #expect(response.status == .ok, "\(response.text)")
                return try #require(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
            }
        }

        let (check, schema) = try Self.schema()
        #expect(check.problems(printed, against: schema) == [])
        #expect(check.problems(answered, against: schema) == [])
        // The same keys, but for where each kept the photos: --save's `saved` (not asked here) and the server's upload.
        #expect(Set(printed.keys) == Set(answered.keys).subtracting(["uploadId"]))
        #expect(answered["uploadId"] is String)
        #expect((printed["collectionMatches"] as? [Any])?.isEmpty == true)
        for key in ["source", "strategy", "model", "uncertain", "notAPlant", "offline", "cached", "organs", "quotaLevel"] {
            #expect("\(printed[key] ?? "absent")" == "\(answered[key] ?? "absent")", "\(key)")
        }
        #expect(printed["strategy"] as? String == "on-device-first")
        #expect(printed["source"] as? String == (withPlantNet ? "plantNetAPI" : "onDevice"))
        #expect((printed["quotaLevel"] is NSNull) == !withPlantNet)
        #expect((answered["quotaLevel"] is NSNull) == !withPlantNet)
        #expect(printed["organs"] as? [String] == ["leaf"])
        func best(_ answer: [String: Any], _ part: String? = nil) -> String? {
            let holder = part.map { answer[$0] as? [String: Any] ?? [:] } ?? answer
            return (holder["predictions"] as? [[String: Any]])?.first?["scientificName"] as? String
        }
        #expect(best(printed) != nil)
        #expect(best(printed) == best(answered))
        // The device's own answer is the same model's on the same photo; Pl@ntNet's, when asked, the stand-in's.
        #expect(best(printed, "onDevice") != nil)
        #expect(best(printed, "onDevice") == best(answered, "onDevice"))
        #expect((best(printed, "online") != nil) == withPlantNet)
        #expect(best(printed, "online") == best(answered, "online"))
    }

    /// The API takes the command line's strategy names too, and answers with the strategy the identifier ran.
    @Test func theAPITakesTheCommandLinesStrategyNames() async throws {
        let stub = try await PlantNetStub.start()
        defer { Task { await stub.stop() } }
        let home = try LiveDependenciesTests.makeHome(withModel: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let dependencies = await ServerDependencies.live(
            dataDirectory: home, environment: ["PLANTNET_API_KEY": "stub-key", "PLANTGUIDE_PLANTNET_URL": stub.baseURL.absoluteString]
        )
        // The Identify form keeps its three choices.
        #expect(dependencies.identification?.strategies == [.auto, .onDevice, .plantNet])
        try await makeApp(dependencies: dependencies).test(.router) { client in
            let session = try await Session.open(client)
            func identify(_ strategy: String) async throws -> (HTTPResponse.Status, IdentifyAnswer?) {
                var form = Multipart()
                form.file("photo", "leaf.jpg", try Data(contentsOf: Self.leaf))
                form.field("strategy", strategy)
                let (headers, body) = session.multipart(form)
                return try await client.execute(uri: "/api/identify", method: .post, headers: headers, body: body) { response in
                    (response.status, response.status == .ok ? try JSONDecoder().decode(IdentifyAnswer.self, from: Data(buffer: response.body)) : nil)
                }
            }
            let expected: [(String, IdentificationStrategy)] = [
                ("auto", .onDeviceFirst), ("on-device", .onDevice), ("plantnet", .api), ("api", .api),
                ("on-device-first", .onDeviceFirst), ("parallel", .parallel),
            ]
            for (name, strategy) in expected {
                let (status, answer) = try await identify(name)
                #expect(status == .ok, "\(name)")
                #expect(answer?.strategy == strategy, "\(name)")
            }
            // Both at once: both sources answered, Pl@ntNet's preferred (from its cache: this photo was sent before).
            let (_, both) = try await identify("parallel")
            #expect(both?.onDevice != nil && both?.online != nil)
            #expect(both?.source == .cache && both?.cached == true)
            let (status, _) = try await identify("best")
            #expect(status == .badRequest)
        }
    }

    /// The checker finds what it is meant to: a missing key, a wrong type, an undocumented key, a value off its list.
    @Test func theSchemaCheckRefusesWhatTheDocumentDoesNotAllow() throws {
        let (check, schema) = try Self.schema()
        let answer = IdentifyAnswer(
            preferred: Identification(source: .onDevice, model: "m", predictions: [
                SpeciesPrediction(rank: 1, scientificName: "Monstera deliciosa", confidence: 0.9),
            ], uncertain: false),
            strategy: .onDevice
        )
        let good = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(answer)) as? [String: Any])
        #expect(check.problems(good, against: schema) == [])
        var bad = good
        bad["uncertain"] = "no"
        bad["didYouMean"] = []
        bad.removeValue(forKey: "suggestions")
        bad["quotaLevel"] = "plenty"
        let problems = check.problems(bad, against: schema)
        #expect(problems.contains { $0.contains("uncertain") })
        #expect(problems.contains { $0.contains("didYouMean is not documented") })
        #expect(problems.contains { $0.contains("suggestions is missing") })
        #expect(problems.contains { $0.contains("plenty") })
        #expect(problems.count == 4)
    }
}
