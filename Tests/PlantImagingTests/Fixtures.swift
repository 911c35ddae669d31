import Foundation
import PlantImaging

/// Reads the committed fixtures (made by scripts/fixtures/make_imaging_fixtures.py).
enum Fixtures {
    static func url(_ name: String) throws -> URL {
        guard let folder = Bundle.module.resourceURL?.appendingPathComponent("Fixtures") else {
            throw FixtureError.missing(name)
        }
        return folder.appendingPathComponent(name)
    }

    static func data(_ name: String) throws -> Data {
        try Data(contentsOf: url(name))
    }

    static func decode(_ name: String) throws -> DecodedImage {
        try ImageDecoder().decode(data(name))
    }

    /// A fixture's tensor written by numpy.
    static func tensor(_ name: String) throws -> (values: [Float], shape: [Int]) {
        guard let array = NumpyFile.read(try data(name)) else { throw FixtureError.unreadable(name) }
        return array
    }

    enum FixtureError: Error {
        case missing(String)
        case unreadable(String)
    }
}

/// Mean absolute difference of two equally long sequences.
func meanAbsoluteDifference(_ a: [UInt8], _ b: [UInt8]) -> Double {
    guard a.count == b.count, !a.isEmpty else { return .infinity }
    var total = 0
    for i in a.indices { total += abs(Int(a[i]) - Int(b[i])) }
    return Double(total) / Double(a.count)
}

func meanAbsoluteDifference(_ a: [Float], _ b: [Float]) -> Double {
    guard a.count == b.count, !a.isEmpty else { return .infinity }
    var total = 0.0
    for i in a.indices { total += Double(abs(a[i] - b[i])) }
    return total / Double(a.count)
}
