import Foundation
import Testing
@testable import PlantClassifier

@Suite struct ModelFileTests {
    @Test func truncatedModelFileIsRejected() throws {
        let (file, _) = try FixtureModels.importModel(.resnet18, precision: .float16)
        defer { FixtureModels.remove(file) }
        let data = try Data(contentsOf: file)
        for cut in [10, 100, data.count - 100] {
            let damaged = FixtureModels.temporaryFile("pgmodel")
            try data.prefix(cut).write(to: damaged)
            defer { FixtureModels.remove(damaged) }
            #expect(throws: ClassifierError.self) { try Classifier(contentsOf: damaged) }
        }
    }

    @Test func otherFilesAreNotModels() throws {
        #expect(throws: ClassifierError.self) { try Classifier(contentsOf: FixtureModels.url("tiny-resnet18.pth")) }
        #expect(throws: ClassifierError.self) { try Classifier(contentsOf: FixtureModels.url("does-not-exist.pgmodel")) }
    }

    @Test func unknownFormatVersionIsRejected() throws {
        let (file, _) = try FixtureModels.importModel(.resnet18, precision: .float16)
        defer { FixtureModels.remove(file) }
        var data = try Data(contentsOf: file)
        data[8] = 9
        try data.write(to: file)
        #expect(throws: ClassifierError.self) { try ModelFile.manifest(at: file) }
    }

    /// A header changed by hand (the data left as it was) is refused before anything is allocated for it: sizes whose
    /// product overflows, and a network far wider than the tensors the file holds.
    @Test func impossibleHeadersAreRefusedWithoutAllocating() throws {
        let (file, _) = try FixtureModels.importModel(.resnet18, precision: .float16)
        defer { FixtureModels.remove(file) }
        let data = try Data(contentsOf: file)
        let headerLength = Int(data[12]) | Int(data[13]) << 8 | Int(data[14]) << 16 | Int(data[15]) << 24
        let payload = data.suffix(from: (16 + headerLength + 63) / 64 * 64)
        func rewritten(_ change: (inout [String: Any]) -> Void) throws -> URL {
            var header = try #require(try JSONSerialization.jsonObject(with: data.subdata(in: 16..<(16 + headerLength))) as? [String: Any])
            change(&header)
            let json = try JSONSerialization.data(withJSONObject: header, options: [.sortedKeys])
            var file = data.prefix(12)
            withUnsafeBytes(of: UInt32(json.count).littleEndian) { file.append(contentsOf: $0) }
            file.append(json)
            file.append(Data(count: (64 - file.count % 64) % 64))
            file.append(payload)
            let url = FixtureModels.temporaryFile("pgmodel")
            try file.write(to: url)
            return url
        }
        let overflowing = try rewritten { header in
            var tensors = header["tensors"] as? [[String: Any]] ?? []
            tensors[0]["shape"] = [Int.max / 2, 4]
            header["tensors"] = tensors
        }
        let wide = try rewritten { $0["baseWidth"] = 4096 }
        defer {
            FixtureModels.remove(overflowing)
            FixtureModels.remove(wide)
        }
        let first = try ModelFile.manifest(at: file).tensors[0].name
        #expect(throws: ClassifierError.invalidModelFile("tensor \(first) lies outside the file (truncated?)")) {
            try Classifier(contentsOf: overflowing)
        }
        let error = #expect(throws: ClassifierError.self) { try Classifier(contentsOf: wide) }
        #expect(String(describing: error).contains("expected"))
    }
}
