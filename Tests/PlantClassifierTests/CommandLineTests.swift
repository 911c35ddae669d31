import Foundation
import PlantGuideTestSupport
import Testing
@testable import PlantClassifier

/// The `model` and `identify` commands, run as a person would.
@Suite struct CommandLineTests {
    let photo = FixtureModels.url("leaf.jpg")
    let checkpoint = FixtureModels.url("tiny-resnet18.pth")

    @Test func identifyWithoutAModelExplainsHowToInstallOne() throws {
        let runner = try CommandLineRunner()
        defer { runner.cleanUp() }
        let outcome = try runner.run(["identify", photo.path])
        #expect(outcome.status != 0)
        #expect(!outcome.killedBySignal)
        #expect(outcome.stderr.contains("plantguide model install"))
        #expect(outcome.stderr.contains("Pl@ntNet"))
    }

    @Test func importThenIdentifyGivesTheLibrarysAnswer() throws {
        let runner = try CommandLineRunner()
        defer { runner.cleanUp() }
        let imported = try runner.run(["model", "import", checkpoint.path, "--arch", "resnet18", "--json"])
        #expect(imported.status == 0, "\(imported.stderr)")
        let summary = try #require(try imported.json() as? [String: Any])
        #expect(summary["classes"] as? Int == 1081)
        #expect(summary["precision"] as? String == "float16")
        #expect(summary["isDefault"] as? Bool == true)

        let outcome = try runner.run(["identify", photo.path, "--json", "--threshold", "0.05"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let json = try #require(try outcome.json() as? [String: Any])
        #expect(json["source"] as? String == "onDevice")
        #expect(json["model"] as? String == "resnet18-plantnet300k")
        let predictions = try #require(json["predictions"] as? [[String: Any]])
        #expect(predictions.count == 10)
        let confidences = predictions.compactMap { $0["confidence"] as? Double }
        #expect(confidences == confidences.sorted(by: >))
        #expect(confidences.allSatisfy { (0...1).contains($0) })
        #expect(predictions.map { $0["rank"] as? Int } == (1...10).map { $0 })
        #expect(Set(predictions.compactMap { $0["scientificName"] as? String }).count == 10)
        let timings = try #require(json["timings"] as? [String: Double])
        #expect(timings["inference"] != nil)
        // Uncertain below the threshold, or when the runner-up scores at least half the best (the default rule).
        let close = confidences.count > 1 && confidences[1] >= confidences[0] * 0.5
        #expect(json["uncertain"] as? Bool == ((confidences.first ?? 0) < 0.05 || close))
        #expect((json["uncertainReason"] as? String != nil) == (json["uncertain"] as? Bool == true))
        // Every candidate is one of the model's classes, so the species directory names its genus and family.
        for prediction in predictions {
            #expect((prediction["family"] as? String)?.hasSuffix("aceae") == true, "\(prediction)")
            #expect(prediction["genus"] as? String != nil)
            #expect(prediction.keys.contains("commonNameLevel") && prediction.keys.contains("relatedCatalogPlants"))
        }

        // The same model and photo through the library.
        let model = runner.home.appendingPathComponent("models/resnet18-plantnet300k.pgmodel")
        let expected = try Classifier(contentsOf: model, threads: 1)
            .identify(photos: [try Data(contentsOf: photo)], top: 10, threshold: 0.05)
        #expect(predictions.compactMap { $0["classIndex"] as? Int } == expected.predictions.compactMap(\.classIndex))
        for (got, want) in zip(confidences, expected.predictions.map(\.confidence)) { #expect(abs(got - want) < 1e-6) }

        let human = try runner.run(["identify", photo.path, "--top", "3", "--threshold", "0.99"])
        #expect(human.status == 0)
        #expect(human.stdout.contains(" 1. "))
        #expect(human.stdout.contains(expected.predictions[0].scientificName))
        #expect(human.stdout.contains("%"))
        #expect(human.stdout.contains("Uncertain"))
    }

    @Test func severalPhotosOfOnePlantAreAveraged() throws {
        let runner = try CommandLineRunner()
        defer { runner.cleanUp() }
        _ = try runner.run(["model", "import", checkpoint.path, "--arch", "resnet18"])
        let model = runner.home.appendingPathComponent("models/resnet18-plantnet300k.pgmodel")
        // Averaging one photo with itself must give that photo's own answer.
        let once = try runner.run(["identify", photo.path, "--json"])
        let twice = try runner.run(["identify", photo.path, photo.path, "--json"])
        let first = try #require(try once.json() as? [String: Any])
        let second = try #require(try twice.json() as? [String: Any])
        let a = try #require(first["predictions"] as? [[String: Any]]).compactMap { $0["confidence"] as? Double }
        let b = try #require(second["predictions"] as? [[String: Any]]).compactMap { $0["confidence"] as? Double }
        #expect(a.count == 10 && b.count == 10)
        for (x, y) in zip(a, b) { #expect(abs(x - y) < 1e-6) }
        #expect(FileManager.default.fileExists(atPath: model.path))
    }

    @Test func aFolderRunsInBatchModeAndReportsBadPhotos() throws {
        let runner = try CommandLineRunner()
        defer { runner.cleanUp() }
        _ = try runner.run(["model", "import", checkpoint.path, "--arch", "resnet18"])
        let folder = runner.home.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: photo, to: folder.appendingPathComponent("a.jpg"))
        try FileManager.default.copyItem(at: photo, to: folder.appendingPathComponent("b.jpg"))
        try Data("not a jpeg".utf8).write(to: folder.appendingPathComponent("c.jpg"))
        try Data("notes".utf8).write(to: folder.appendingPathComponent("notes.txt"))
        let outcome = try runner.run(["identify", folder.path, "--json"])
        #expect(outcome.status != 0)
        #expect(!outcome.killedBySignal)
        let items = try #require(try outcome.json() as? [[String: Any]])
        #expect(items.count == 3)
        #expect(items.compactMap { ($0["file"] as? String).map { ($0 as NSString).lastPathComponent } } == ["a.jpg", "b.jpg", "c.jpg"])
        #expect(items[0]["identification"] != nil && items[1]["identification"] != nil)
        #expect(items[2]["error"] as? String != nil)
    }

    @Test func inspectListsTensors() throws {
        let runner = try CommandLineRunner()
        defer { runner.cleanUp() }
        let outcome = try runner.run(["model", "inspect", FixtureModels.url("tiny-resnet50.pth").path, "--json"])
        #expect(outcome.status == 0)
        let json = try #require(try outcome.json() as? [String: Any])
        let tensors = try #require(json["tensors"] as? [[String: Any]])
        let expected = try #require(try FixtureModels.expected().models["resnet50"]).tensorList
        #expect(tensors.compactMap { $0["name"] as? String } == expected.map(\.0))
        #expect(tensors.compactMap { $0["shape"] as? [Int] } == expected.map(\.1))
        #expect(tensors.first?["dtype"] as? String == "float32")
    }

    @Test func maliciousCheckpointIsRefusedByTheCommandLine() throws {
        let runner = try CommandLineRunner()
        defer { runner.cleanUp() }
        let output = runner.home.appendingPathComponent("evil.pgmodel")
        let outcome = try runner.run(["model", "import", FixtureModels.url("malicious.pth").path, "--arch", "resnet50", "--output", output.path])
        #expect(outcome.status != 0)
        #expect(outcome.stderr.contains("os.system"))
        #expect(!FileManager.default.fileExists(atPath: output.path))
        let inspect = try runner.run(["model", "inspect", FixtureModels.url("malicious.pth").path])
        #expect(inspect.status != 0)
    }

    @Test func badArgumentsAreRejected() throws {
        let runner = try CommandLineRunner()
        defer { runner.cleanUp() }
        #expect(try runner.run(["model", "import", checkpoint.path, "--arch", "vgg16"]).status != 0)
        #expect(try runner.run(["model", "import", checkpoint.path, "--arch", "resnet18", "--precision", "int8"]).status != 0)
        #expect(try runner.run(["identify", photo.path, "--top", "0"]).status != 0)
        #expect(try runner.run(["identify", photo.path, "--threshold", "7"]).status != 0)
    }

    @Test func installDownloadsResumesAndMakesTheModelDefault() throws {
        let server = try LoopbackFileServer(
            files: ["/files/resnet18_weights_best_acc.tar": try Data(contentsOf: checkpoint)], dropConnections: 1, cutAfter: 200_000
        )
        defer { server.stop() }
        let runner = try CommandLineRunner()
        defer { runner.cleanUp() }
        let url = server.url("/files/resnet18_weights_best_acc.tar").absoluteString

        let first = try runner.run(["model", "install", url])
        #expect(first.status != 0)
        #expect(!first.killedBySignal)
        #expect(first.stderr.contains("resume"))

        let second = try runner.run(["model", "install", url, "--json"])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(server.requests.map(\.range) == [nil, "bytes=200000-"])
        let summary = try #require(try second.json() as? [String: Any])
        #expect(summary["architecture"] as? String == "resnet18")
        let identify = try runner.run(["identify", photo.path, "--json"])
        #expect(identify.status == 0, "\(identify.stderr)")
        let downloads = runner.home.appendingPathComponent("models/downloads")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: downloads.path)) ?? []).isEmpty)
    }

    /// What scripts/run does: `model install --if-missing` from the official record (a loopback Zenodo here), with
    /// progress lines in a log, the checksum checked; a second run does nothing; a plain-http mirror is refused.
    @Test func installIfMissingTakesTheRecordsFileOnce() throws {
        let weights = try Data(contentsOf: checkpoint)
        let md5 = try PublishedFile.md5(of: checkpoint)
        let record = try JSONSerialization.data(withJSONObject: [
            "files": [["key": "resnet18_weights_best_acc.tar", "size": weights.count, "checksum": "md5:\(md5)"]],
        ])
        let server = try LoopbackFileServer(files: [
            "/records/4726653/files/resnet18_weights_best_acc.tar?download=1": weights, "/api/records/4726653": record,
        ])
        defer { server.stop() }
        var runner = try CommandLineRunner(environment: [ModelSource.zenodoVariable: server.url("").absoluteString])
        defer { runner.cleanUp() }

        let first = try runner.run(["model", "install", "--if-missing", "--arch", "resnet18"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("Installing resnet18 from Zenodo record 4726653"))
        #expect(first.stderr.contains("Downloading resnet18_weights_best_acc.tar: 100 %"))
        #expect(first.stderr.contains("Checked against Zenodo record 4726653: MD5 \(md5)"))
        #expect(first.stdout.contains("Imported resnet18"))
        let requests = server.requests.count

        let second = try runner.run(["model", "install", "--if-missing"])
        #expect(second.status == 0)
        #expect(second.stdout.contains("The default on-device model is installed: resnet18-plantnet300k"))
        #expect(server.requests.count == requests)
        #expect(try runner.run(["identify", photo.path, "--json"]).status == 0)

        runner.environment[ModelSource.mirrorVariable] = "http://example.org/plantnet/"
        let refused = try runner.run(["model", "install", "--arch", "resnet34"])
        #expect(refused.status == 1 && !refused.killedBySignal)
        #expect(refused.stderr.contains("plain http is allowed only for a server on this machine"))
    }

    /// A disk that fills during the download (simulated with a file-size limit): a clear error, no model, the bytes
    /// kept; with room again the same command resumes and installs.
    @Test func aFullDiskStopsTheDownloadClearlyAndTheNextRunResumes() throws {
        let server = try LoopbackFileServer(files: ["/files/resnet18_weights_best_acc.tar": try Data(contentsOf: checkpoint)])
        defer { server.stop() }
        var runner = try CommandLineRunner()
        defer { runner.cleanUp() }
        let url = server.url("/files/resnet18_weights_best_acc.tar").absoluteString
        runner.fileSizeLimitKiB = 256
        let full = try runner.run(["model", "install", url])
        #expect(full.status == 1 && !full.killedBySignal, "\(full.stderr)")
        #expect(full.stderr.contains("disk full?"), "\(full.stderr)")
        let part = runner.home.appendingPathComponent("models/downloads/resnet18_weights_best_acc.tar.part")
        let kept = (try? FileManager.default.attributesOfItem(atPath: part.path)[.size] as? Int) ?? 0
        #expect(kept > 0 && kept <= 256 * 1024)
        #expect(!FileManager.default.fileExists(atPath: runner.home.appendingPathComponent("models/default").path))
        runner.fileSizeLimitKiB = nil
        let again = try runner.run(["model", "install", url])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(server.requests.last?.range == "bytes=\(kept)-")
    }

    @Test func installFromAnUnreachableServerFailsClearly() throws {
        let offline = try RefusingPort()
        defer { offline.release() }
        let url = offline.url.appendingPathComponent("resnet50_weights_best_acc.tar").absoluteString
        let runner = try CommandLineRunner()
        defer { runner.cleanUp() }
        let outcome = try runner.run(["model", "install", url])
        #expect(outcome.status != 0)
        #expect(!outcome.killedBySignal)
        #expect(outcome.stderr.contains("Download of"))
        #expect(outcome.stderr.contains("plantguide model install FILE"))
    }
}
