import Foundation
import PlantGuideCore
import PlantGuideTestSupport
import Testing
@testable import PlantClassifier

/// `model list`, `info`, `use` and `remove`, the checksum check on load and the on-device time limit, run as a
/// person would against a fresh data directory with the generated fixture checkpoints.
@Suite struct ModelRegistryCommandTests {
    let photo = FixtureModels.url("leaf.jpg")
    let resnet18 = FixtureModels.url("tiny-resnet18.pth")
    let resnet34 = FixtureModels.url("tiny-resnet34.pth")

    private func json(_ outcome: CommandLineRunner.Outcome) throws -> Any {
        #expect(outcome.status == 0, "stderr: \(outcome.stderr)")
        return try outcome.json()
    }

    /// A data directory with two installed models: resnet18-plantnet300k, then resnet34-index (the default).
    private func runnerWithTwoModels(environment: [String: String] = [:]) throws -> CommandLineRunner {
        let runner = try CommandLineRunner(environment: environment)
        #expect(try runner.run(["model", "import", resnet18.path, "--arch", "resnet18"]).status == 0)
        let labels = FixtureModels.labels(for: try #require(try FixtureModels.expected().models["resnet34"]))
        let second = try runner.run(["model", "import", resnet34.path, "--arch", "resnet34", "--labels", labels, "--precision", "float32"])
        #expect(second.status == 0, "\(second.stderr)")
        return runner
    }

    private func modelFile(_ runner: CommandLineRunner, _ name: String) -> URL {
        runner.home.appendingPathComponent("models/\(name).pgmodel")
    }

    @Test func listShowsWhatEachModelIsAndWhereItCameFrom() throws {
        let runner = try CommandLineRunner()
        defer { runner.cleanUp() }
        #expect((try json(try runner.run(["model", "list", "--json"])) as? [Any])?.isEmpty == true)
        let empty = try runner.run(["model", "list"])
        #expect(empty.status == 0 && empty.stdout.contains("plantguide model install"))

        #expect(try runner.run(["model", "import", resnet18.path, "--arch", "resnet18"]).status == 0)
        let labels = FixtureModels.labels(for: try #require(try FixtureModels.expected().models["resnet34"]))
        let name34 = "resnet34-\(labels)"
        _ = try runner.run(["model", "import", resnet34.path, "--arch", "resnet34", "--labels", labels, "--precision", "float32"])
        let models = try #require(try json(try runner.run(["model", "list", "--json"])) as? [[String: Any]])
        #expect(models.compactMap { $0["name"] as? String } == ["resnet18-plantnet300k", name34].sorted())
        let r18 = try #require(models.first { $0["name"] as? String == "resnet18-plantnet300k" })
        let r34 = try #require(models.first { $0["name"] as? String == name34 })
        #expect(r18["architecture"] as? String == "resnet18")
        #expect(r18["classes"] as? Int == 1081)
        #expect(r18["precision"] as? String == "float16")
        #expect(r34["precision"] as? String == "float32")
        #expect(r18["sourceSHA256"] as? String == sha256Hex(try Data(contentsOf: resnet18)))
        #expect(r34["sourceSHA256"] as? String == sha256Hex(try Data(contentsOf: resnet34)))
        #expect(r18["source"] as? String == resnet18.standardizedFileURL.path)
        #expect(r18["checksums"] as? Bool == true)
        let size = try FileManager.default.attributesOfItem(atPath: modelFile(runner, "resnet18-plantnet300k").path)[.size] as? Int
        #expect(r18["bytes"] as? Int == size)
        let importedAt = try #require(r18["importedAt"] as? String)
        #expect(ISO8601DateFormatter().date(from: importedAt).map { abs($0.timeIntervalSinceNow) < 600 } == true)
        // The last import became the default; exactly one model is.
        #expect(r34["isDefault"] as? Bool == true && r18["isDefault"] as? Bool == false)
        // Every object has every key, unknown or not.
        #expect(Set(r18.keys) == Set(r34.keys) && r18.keys.contains("problem"))

        let text = try runner.run(["model", "list"])
        #expect(text.status == 0)
        #expect(text.stdout.contains("* \(name34)") && text.stdout.contains("(default)"))
        #expect(text.stdout.contains("  resnet18-plantnet300k  resnet18, 1081 classes (plantnet300k), float16"))
        #expect(text.stdout.contains("sha256 \(sha256Hex(try Data(contentsOf: resnet18)))"))
        #expect(text.stdout.contains("from \(resnet18.standardizedFileURL.path)"))
    }

    /// `model info --plan` loads the model and names what runs each layer here, remembers the timings beside the file
    /// (removed with the model), and says so in JSON too.
    @Test func infoPlanShowsWhatRunsEachLayer() throws {
        let runner = try runnerWithTwoModels()
        defer { runner.cleanUp() }
        let file = modelFile(runner, "resnet18-plantnet300k")
        let text = try runner.run(["model", "info", "resnet18-plantnet300k", "--plan", "--threads", "2"])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("layers on this CPU") && text.stdout.contains(CPUInfo.current.signature))
        #expect(text.stdout.contains("conv1") && text.stdout.contains("layer4.1.conv2") && text.stdout.contains("of 20 layers timed on more than one engine"))
        let info = try #require(try json(try runner.run(["model", "info", "resnet18-plantnet300k", "--plan", "--json", "--threads", "2"])) as? [String: Any])
        let layers = try #require(info["plan"] as? [[String: Any]])
        #expect(layers.count == 20)
        let kernels = ["oneDNN", "Winograd F(4×4, 3×3)", "Winograd F(2×2, 3×3)", "pointwise", "BLAS"]
        #expect(layers.allSatisfy { kernels.contains(($0["kernelName"] as? String ?? "").replacingOccurrences(of: " AVX-512", with: "")) })
        if DNNLConvolutions.cpuRunsOwnKernels {
            #expect(FileManager.default.fileExists(atPath: LayerPlan.url(for: file).path))
            #expect(layers.contains { ($0["milliseconds"] as? [String: Double])?.count ?? 0 >= 2 })
        }
        // Without --plan nothing is loaded and there is no plan key.
        let plain = try #require(try json(try runner.run(["model", "info", "resnet18-plantnet300k", "--json"])) as? [String: Any])
        #expect(plain["plan"] == nil)
        let misuse = try runner.run(["model", "info", "resnet18-plantnet300k", "--threads", "2"])
        #expect(misuse.status != 0 && misuse.stderr.contains("--threads only applies with --plan"))
        #expect(try runner.run(["model", "remove", "resnet18-plantnet300k"]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: LayerPlan.url(for: file).path))
    }

    @Test func infoChecksTheWeightsAndABadNameListsTheInstalledOnes() throws {
        let runner = try runnerWithTwoModels()
        defer { runner.cleanUp() }
        let info = try #require(try json(try runner.run(["model", "info", "resnet18-plantnet300k", "--json"])) as? [String: Any])
        #expect(info["integrity"] as? String == "intact")
        #expect(info["file"] as? String == modelFile(runner, "resnet18-plantnet300k").path)
        // The file name works too.
        #expect(try runner.run(["model", "info", "resnet18-plantnet300k.pgmodel"]).stdout.contains("intact"))

        for bad in ["resnet99", "../models/resnet18-plantnet300k", ""] {
            let outcome = try runner.run(["model", "info", bad])
            #expect(outcome.status != 0 && !outcome.killedBySignal)
            #expect(outcome.stderr.contains("No model named '\(bad)'"), "\(outcome.stderr)")
            #expect(outcome.stderr.contains("resnet18-plantnet300k"))
        }
        for command in ["use", "remove"] {
            let outcome = try runner.run(["model", command, "resnet99"])
            #expect(outcome.status != 0 && outcome.stderr.contains("Installed: resnet18-plantnet300k"), "\(outcome.stderr)")
        }
    }

    @Test func useChangesWhatIdentifyRuns() throws {
        let runner = try runnerWithTwoModels()
        defer { runner.cleanUp() }
        let used = try #require(try json(try runner.run(["model", "use", "resnet18-plantnet300k", "--json"])) as? [String: Any])
        #expect(used["isDefault"] as? Bool == true)
        let models = try #require(try json(try runner.run(["model", "list", "--json"])) as? [[String: Any]])
        #expect(models.filter { $0["isDefault"] as? Bool == true }.compactMap { $0["name"] as? String } == ["resnet18-plantnet300k"])
        let identify = try #require(
            try json(try runner.run(["identify", photo.path, "--strategy", "on-device", "--json"])) as? [String: Any]
        )
        #expect(identify["model"] as? String == "resnet18-plantnet300k")
        #expect(try runner.run(["model", "use", "resnet18-plantnet300k"]).stdout.contains("is now the default model"))
    }

    @Test func removingTheDefaultNeedsForceAndSaysWhatHappens() throws {
        let runner = try runnerWithTwoModels()
        defer { runner.cleanUp() }
        let default34 = try #require(
            (try json(try runner.run(["model", "list", "--json"])) as? [[String: Any]])?.first { $0["isDefault"] as? Bool == true }
        )
        let name34 = try #require(default34["name"] as? String)

        // Another model goes at once and the default stays.
        let removed = try #require(try json(try runner.run(["model", "remove", "resnet18-plantnet300k", "--json"])) as? [String: Any])
        #expect((removed["removed"] as? [String: Any])?["name"] as? String == "resnet18-plantnet300k")
        #expect(removed["defaultModel"] as? String == name34)
        #expect(!FileManager.default.fileExists(atPath: modelFile(runner, "resnet18-plantnet300k").path))

        // The default is kept without --force, with what to do instead.
        let refused = try runner.run(["model", "remove", name34])
        #expect(refused.status != 0 && !refused.killedBySignal)
        #expect(refused.stderr.contains("is the default model") && refused.stderr.contains("--force"), "\(refused.stderr)")
        #expect(refused.stderr.contains("Pl@ntNet only"))
        #expect(FileManager.default.fileExists(atPath: modelFile(runner, name34).path))

        let forced = try runner.run(["model", "remove", name34, "--force"])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(forced.stdout.contains("no default model now") && forced.stdout.contains("plantguide model install"))
        #expect(!FileManager.default.fileExists(atPath: modelFile(runner, name34).path))
        #expect(!FileManager.default.fileExists(atPath: runner.home.appendingPathComponent("models/default").path))
        #expect((try json(try runner.run(["model", "list", "--json"])) as? [Any])?.isEmpty == true)
        let identify = try runner.run(["identify", photo.path, "--strategy", "on-device"])
        #expect(identify.status != 0 && identify.stderr.contains("plantguide model install"))
    }

    @Test func removingTheDefaultLeavesTheOthersToChooseFrom() throws {
        let runner = try runnerWithTwoModels()
        defer { runner.cleanUp() }
        #expect(try runner.run(["model", "use", "resnet18-plantnet300k"]).status == 0)
        let forced = try runner.run(["model", "remove", "resnet18-plantnet300k", "--force"])
        #expect(forced.status == 0)
        #expect(forced.stdout.contains("plantguide model use NAME") && forced.stdout.contains("installed: resnet34-"))
        let listed = try runner.run(["model", "list"])
        #expect(listed.stderr.contains("No model is the default"))
    }

    @Test func aModelChangedOnDiskIsRefusedWithWhatToDo() throws {
        let runner = try runnerWithTwoModels()
        defer { runner.cleanUp() }
        #expect(try runner.run(["model", "use", "resnet18-plantnet300k"]).status == 0)
        let file = modelFile(runner, "resnet18-plantnet300k")
        try FixtureModels.tamper(file, tensor: "layer4.1.conv2.weight")

        let identify = try runner.run(["identify", photo.path, "--strategy", "on-device"])
        #expect(identify.status != 0 && !identify.killedBySignal)
        #expect(identify.stderr.contains("\(file.path) no longer matches the checksums"), "\(identify.stderr)")
        #expect(identify.stderr.contains("layer4.1.conv2.weight") && identify.stderr.contains("Import the checkpoint again"))

        let info = try #require(try json(try runner.run(["model", "info", "resnet18-plantnet300k", "--json"])) as? [String: Any])
        #expect(info["integrity"] as? String == "changed")
        // Listing only reads headers, so the damaged model still shows; it cannot be made the default again.
        #expect((try json(try runner.run(["model", "list", "--json"])) as? [Any])?.count == 2)
        let use = try runner.run(["model", "use", "resnet18-plantnet300k"])
        #expect(use.status != 0 && use.stderr.contains("no longer matches"))

        // Importing the checkpoint again repairs it.
        #expect(try runner.run(["model", "import", resnet18.path, "--arch", "resnet18"]).status == 0)
        #expect(try runner.run(["identify", photo.path, "--strategy", "on-device"]).status == 0)
    }

    @Test func aModelFromAnOlderPlantGuideIsListedWithUnknownFactsAndStillIdentifies() throws {
        let runner = try CommandLineRunner()
        defer { runner.cleanUp() }
        #expect(try runner.run(["model", "import", resnet18.path, "--arch", "resnet18"]).status == 0)
        let file = modelFile(runner, "resnet18-plantnet300k")
        let expected = try json(try runner.run(["identify", photo.path, "--strategy", "on-device", "--json"])) as? [String: Any]
        try FixtureModels.writeWithoutNewFields(file, to: file)

        let models = try #require(try json(try runner.run(["model", "list", "--json"])) as? [[String: Any]])
        let model = try #require(models.first)
        #expect(model["source"] is NSNull && model["importedAt"] is NSNull)
        #expect(model["checksums"] as? Bool == false)
        #expect(model["sourceName"] as? String == "tiny-resnet18.pth")
        #expect(model["isDefault"] as? Bool == true)
        #expect(try runner.run(["model", "list"]).stdout.contains("imported unknown"))
        let info = try #require(try json(try runner.run(["model", "info", "resnet18-plantnet300k", "--json"])) as? [String: Any])
        #expect(info["integrity"] as? String == "unknown")

        let identify = try json(try runner.run(["identify", photo.path, "--strategy", "on-device", "--json"])) as? [String: Any]
        let names = { (answer: [String: Any]?) in (answer?["predictions"] as? [[String: Any]])?.compactMap { $0["scientificName"] as? String } }
        #expect(names(identify) != nil && names(identify) == names(expected))
    }

    @Test func importAndInstallRecordTheSource() throws {
        let server = try LoopbackFileServer(files: ["/files/resnet18_weights_best_acc.tar": try Data(contentsOf: resnet18)])
        defer { server.stop() }
        let runner = try CommandLineRunner()
        defer { runner.cleanUp() }
        let url = server.url("/files/resnet18_weights_best_acc.tar").absoluteString
        let installed = try #require(try json(try runner.run(["model", "install", url, "--json"])) as? [String: Any])
        #expect(installed["source"] as? String == url)
        #expect(installed["sourceSHA256"] as? String == sha256Hex(try Data(contentsOf: resnet18)))
        #expect(installed["importedAt"] is String)
        let listed = try #require((try json(try runner.run(["model", "list", "--json"])) as? [[String: Any]])?.first)
        #expect(listed["source"] as? String == url)

        let output = runner.home.appendingPathComponent("elsewhere.pgmodel")
        let imported = try #require(
            try json(try runner.run(["model", "import", resnet18.path, "--arch", "resnet18", "--output", output.path, "--json"]))
                as? [String: Any]
        )
        #expect(imported["source"] as? String == resnet18.standardizedFileURL.path)
    }

    /// A photo big enough that decoding it alone takes far longer than a millisecond.
    private func largePhoto(_ runner: CommandLineRunner) throws -> String {
        let url = runner.home.appendingPathComponent("large.png")
        try PNGFixture.gradient(width: 2000, height: 1500, seed: 7).write(to: url)
        return url.path
    }

    @Test(arguments: ["on-device-first", "parallel"])
    func anOnDeviceOverrunFallsBackToPlantNet(strategy: String) async throws {
        let stub = try await PlantNetStub.start()
        defer { Task { await stub.stop() } }
        let runner = try CommandLineRunner(
            environment: ["PLANTGUIDE_PLANTNET_URL": stub.baseURL.absoluteString, "PLANTNET_API_KEY": "stub-key"]
        )
        defer { runner.cleanUp() }
        #expect(try runner.run(["model", "import", resnet18.path, "--arch", "resnet18"]).status == 0)
        let large = try largePhoto(runner)
        let outcome = try runner.run([
            "identify", large, large, large, "--strategy", strategy, "--on-device-timeout", "0.001", "--threads", "1", "--json",
        ])
        let answer = try #require(try json(outcome) as? [String: Any])
        #expect(answer["source"] as? String == "plantNetAPI")
        #expect((answer["predictions"] as? [[String: Any]])?.first?["scientificName"] as? String == "Monstera deliciosa")
        let notes = try #require(answer["notes"] as? [String])
        #expect(notes.contains { $0.contains("took longer than 0.001 s") }, "\(notes)")
        #expect(answer["onDevice"] == nil || answer["onDevice"] is NSNull)
        #expect(stub.requestCount == 1)
    }

    @Test func anOnDeviceOverrunWithoutAFallbackFailsClearly() throws {
        let runner = try CommandLineRunner()
        defer { runner.cleanUp() }
        #expect(try runner.run(["model", "import", resnet18.path, "--arch", "resnet18"]).status == 0)
        let large = try largePhoto(runner)
        let outcome = try runner.run(["identify", large, "--strategy", "on-device", "--on-device-timeout", "0.001"])
        #expect(outcome.status != 0 && !outcome.killedBySignal)
        #expect(outcome.stderr.contains("took longer than 0.001 s") && outcome.stderr.contains("--on-device-timeout"), "\(outcome.stderr)")
        // The default limit leaves room for the same work.
        #expect(try runner.run(["identify", large, "--strategy", "on-device"]).status == 0)
        for bad in ["0", "-2", "4000", "soon"] {
            let refused = try runner.run(["identify", large, "--on-device-timeout", bad])
            #expect(refused.status != 0 && refused.stderr.contains("on-device-timeout"), "\(bad): \(refused.stderr)")
        }
    }
}
