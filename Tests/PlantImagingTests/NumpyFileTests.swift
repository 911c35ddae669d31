import Foundation
import PlantImaging
import Testing

@Suite struct NumpyFileTests {
    @Test func roundTripsFloat32Arrays() throws {
        let values: [Float] = (0..<24).map { Float($0) * 0.5 - 3 }
        let data = NumpyFile.data(values, shape: [2, 3, 4])
        #expect(Array(data.prefix(6)) == [0x93] + Array("NUMPY".utf8))
        // Version 1.0 headers are padded so the data starts on a 64-byte boundary.
        let headerLength = Int(data[8]) | Int(data[9]) << 8
        #expect((10 + headerLength) % 64 == 0)
        let read = try #require(NumpyFile.read(data))
        #expect(read.shape == [2, 3, 4])
        #expect(read.values == values)
    }

    @Test func readsWhatNumpyWrote() throws {
        let array = try Fixtures.tensor("photo.png.tensor.npy")
        #expect(array.shape == [3, 80, 80])
        #expect(array.values.allSatisfy { $0 > -2.2 && $0 < 2.7 })
    }

    @Test func refusesOtherFiles() {
        #expect(NumpyFile.read(Data("not numpy".utf8)) == nil)
    }
}
