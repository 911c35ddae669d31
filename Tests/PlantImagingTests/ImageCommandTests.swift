import PlantGuideCore
import Foundation
import PlantGuideTestSupport
import PlantImaging
import Testing

/// `plantguide image …` run as a person would, as a separate process.
@Suite struct ImageCommandTests {
    @Test func prepareWritesAStandardNpyFile() throws {
        let runner = try CommandLineRunner()
        defer { runner.cleanUp() }
        let output = runner.home.appendingPathComponent("tensor.npy")
        let image = try Fixtures.url("photo-large.jpg").path
        let outcome = try runner.run(["image", "prepare", image, "--output", output.path, "--json"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let report = try #require(try outcome.json() as? [String: Any])
        #expect(report["format"] as? String == "jpeg")
        #expect(report["originalWidth"] as? Int == 320 && report["originalHeight"] as? Int == 240)
        #expect(report["orientation"] as? Int == 1)
        #expect(report["decodeMilliseconds"] is Double)
        let array = try #require(NumpyFile.read(try Data(contentsOf: output)))
        #expect(array.shape == [3, 224, 224])
        let expected = try Fixtures.tensor("photo-large.jpg.tensor.npy")
        #expect(meanAbsoluteDifference(array.values, expected.values) < 0.01)
    }

    @Test func prepareHonoursSizesAndPrintsTheOrientation() throws {
        let runner = try CommandLineRunner()
        defer { runner.cleanUp() }
        let output = runner.home.appendingPathComponent("small.npy")
        let image = try Fixtures.url("orientation-6.jpg").path
        let outcome = try runner.run(["image", "prepare", image, "--output", output.path, "--size", "48", "--resize", "64"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stdout.contains("orientation 6"))
        #expect(outcome.stdout.contains("JPEG"))
        let array = try #require(NumpyFile.read(try Data(contentsOf: output)))
        #expect(array.shape == [3, 48, 48])
    }

    @Test(arguments: ["hostile/empty.jpg", "hostile/random.bin", "hostile/truncated.jpg", "hostile/truncated.png",
                      "hostile/truncated.heic", "hostile/random.jpg", "hostile/random.png", "hostile/random.webp",
                      "hostile/random.heic", "hostile/bomb.png", "hostile/bomb.jpg", "hostile/tiny.png", "hostile/bad-sps.heic"])
    func badImagesFailWithOneLine(name: String) throws {
        let runner = try CommandLineRunner()
        defer { runner.cleanUp() }
        let output = runner.home.appendingPathComponent("out.npy")
        let outcome = try runner.run(["image", "prepare", try Fixtures.url(name).path, "--output", output.path])
        #expect(!outcome.killedBySignal)
        #expect(outcome.status != 0)
        let lines = outcome.stderr.split(separator: "\n", omittingEmptySubsequences: true)
        #expect(lines.count == 1, "\(outcome.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }

    @Test func missingFilesAndBadSizesAreRefused() throws {
        let runner = try CommandLineRunner()
        defer { runner.cleanUp() }
        let missing = try runner.run(["image", "prepare", "/nonexistent/leaf.jpg", "--output", "x.npy"])
        #expect(missing.status != 0 && !missing.killedBySignal)
        #expect(missing.stderr.contains("no such file"))
        let badSize = try runner.run(["image", "prepare", try Fixtures.url("photo.jpg").path, "--output", "x.npy", "--size", "300"])
        #expect(badSize.status != 0)
        #expect(badSize.stderr.contains("--resize"))
    }

    @Test func uploadWritesAJPEGAndPrintsHashes() throws {
        let runner = try CommandLineRunner()
        defer { runner.cleanUp() }
        let output = runner.home.appendingPathComponent("upload.jpg")
        let source = try Fixtures.url("photo.heic")
        let outcome = try runner.run(["image", "upload", source.path, "--output", output.path, "--json"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let report = try #require(try outcome.json() as? [String: Any])
        #expect(report["sourceFormat"] as? String == "heic")
        #expect(report["originalSHA256"] as? String == sha256Hex(try Data(contentsOf: source)))
        #expect((report["perceptualHash"] as? String)?.count == 16)
        let decoded = try ImageDecoder().decode(try Data(contentsOf: output))
        #expect(decoded.format == .jpeg && decoded.image.width == 160)
    }
}
