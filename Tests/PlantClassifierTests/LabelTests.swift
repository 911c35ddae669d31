import Foundation
import Testing
@testable import PlantClassifier

@Suite struct LabelTests {
    @Test func plantNet300KHas1081ClassesIn1019Species() throws {
        let labels = try LabelSet.plantNet300K()
        #expect(labels.labels.count == 1081)
        #expect(labels.labels[0].binomial == "Lactuca virosa")
        #expect(labels.labels[0].authorship == "L.")
        #expect(labels.labels[0].speciesId == "1355868")
        #expect(labels.labels[1080].binomial == "Acacia senegalensis")
        #expect(labels.groups.count == 1019)
        #expect(labels.groups.filter { $0.count > 1 }.count == 57)
        #expect(labels.groups.filter { $0.count > 1 }.map(\.count).reduce(0, +) == 119)
    }

    @Test func mergedSpeciesSumTheirProbabilities() throws {
        let (file, _) = try FixtureModels.importModel(.resnet18, precision: .float16)
        defer { FixtureModels.remove(file) }
        let classifier = try Classifier(contentsOf: file, threads: 1)
        let labels = classifier.labels
        let duplicate = try #require(labels.groups.first { $0.count > 1 })
        // Put 30 % on each id of one duplicated species and spread the rest.
        var probabilities = [Float](repeating: 0.4 / Float(1081 - duplicate.count), count: 1081)
        for index in duplicate { probabilities[index] = 0.3 / Float(duplicate.count) * 2 }
        let top = classifier.predictions(from: probabilities, top: 10)
        #expect(top.count == 10)
        #expect(top[0].scientificName == labels.labels[duplicate[0]].binomial)
        #expect(abs(top[0].probability - 0.6) < 1e-5)
        #expect(Set(top.map(\.scientificName)).count == 10)
    }

    @Test func indexLabelsNameClassesByNumber() throws {
        let labels = try LabelSet.named("index", classes: 3)
        #expect(labels.labels.map(\.binomial) == ["class 0", "class 1", "class 2"])
        #expect(throws: ClassifierError.self) { try LabelSet.named("imagenet", classes: 1000) }
    }
}
