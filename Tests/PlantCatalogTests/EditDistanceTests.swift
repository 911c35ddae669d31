@testable import PlantCatalog
import Testing

/// The banded distance must agree with the plain full-matrix definition wherever it answers.
@Suite struct EditDistanceTests {
    /// Full-matrix optimal string alignment distance, the reference.
    private func reference(_ a: [UInt8], _ b: [UInt8]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var d = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
                }
            }
        }
        return d[a.count][b.count]
    }

    @Test func agreesWithTheFullMatrixOnRandomWords() {
        var generator = SplitMix(seed: 42)
        for _ in 0..<5_000 {
            let a = (0..<Int.random(in: 1...10, using: &generator)).map { _ in UInt8.random(in: 97...100, using: &generator) }
            let b = (0..<Int.random(in: 0...12, using: &generator)).map { _ in UInt8.random(in: 97...100, using: &generator) }
            for limit in 1...2 {
                var banded = EditDistance(pattern: a, limit: limit)
                let (full, prefix) = banded.compare(with: b)
                let expected = reference(a, b)
                #expect(full == (expected <= limit ? expected : nil), "\(a) \(b) limit \(limit)")
                let bestPrefix = (0...b.count).map { reference(a, Array(b.prefix($0))) }.min() ?? .max
                #expect(prefix == (bestPrefix <= limit ? bestPrefix : nil), "prefix \(a) \(b) limit \(limit)")
            }
        }
    }

    @Test(arguments: [
        ("monstra", "monstera", 1), ("sansiveria", "sansevieria", 2), ("delicosa", "deliciosa", 1),
        ("mnit", "mint", 1), ("ficus", "ficus", 0),
    ])
    func knownTypos(typed: String, word: String, distance: Int) {
        var banded = EditDistance(pattern: Array(typed.utf8), limit: 2)
        #expect(banded.compare(with: Array(word.utf8)).full == distance)
    }
}

/// A small seeded generator so the random cases are the same on every run.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
