import Foundation
import Testing
@testable import PlantClassifier

@Suite struct ModelFileTests {
    @Test func truncatedModelFileIsRejected() throws {
        let (file, _) = try FixtureModels.importModel(.resnet18, precision: .float16)
        defer { try? FileManager.default.removeItem(at: file) }
        let data = try Data(contentsOf: file)
        for cut in [10, 100, data.count - 100] {
            let damaged = FixtureModels.temporaryFile("pgmodel")
            try data.prefix(cut).write(to: damaged)
            defer { try? FileManager.default.removeItem(at: damaged) }
            #expect(throws: ClassifierError.self) { try Classifier(contentsOf: damaged) }
        }
    }

    @Test func otherFilesAreNotModels() throws {
        #expect(throws: ClassifierError.self) { try Classifier(contentsOf: FixtureModels.url("tiny-resnet18.pth")) }
        #expect(throws: ClassifierError.self) { try Classifier(contentsOf: FixtureModels.url("does-not-exist.pgmodel")) }
    }

    @Test func unknownFormatVersionIsRejected() throws {
        let (file, _) = try FixtureModels.importModel(.resnet18, precision: .float16)
        defer { try? FileManager.default.removeItem(at: file) }
        var data = try Data(contentsOf: file)
        data[8] = 9
        try data.write(to: file)
        #expect(throws: ClassifierError.self) { try ModelFile.manifest(at: file) }
    }
}
