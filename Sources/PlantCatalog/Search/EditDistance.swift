/// Bounded edit distance with adjacent transpositions (optimal string alignment) between a query word
/// and a catalog word, on bytes of folded text.
///
/// Only the diagonal band of width `2 × limit + 1` can hold distances within the limit, so only that
/// band is computed: a few dozen cells per word instead of the full matrix. One pass gives both the
/// distance to the whole word and the best distance to any start of it (a typo in a word still being
/// typed).
struct EditDistance {
    /// How many typos a query word of this length may carry: none for short words, where a typo
    /// would match too much, one from four letters, two from eight.
    static func allowance(forLength length: Int) -> Int {
        switch length {
        case ..<4: 0
        case 4..<8: 1
        default: 2
        }
    }

    private let pattern: [UInt8]
    private let limit: Int
    /// Three rows of the band, reused from word to word: the row being filled, the one above it (for
    /// insertions, deletions and substitutions) and the one above that (for transpositions).
    private var rows: [Int] = []

    /// Prepares to compare `pattern` with many words, allowing at most `limit` edits.
    ///
    /// Nothing is allocated here: memory grows with the longest word compared (three rows of it), never
    /// with the pattern, so a hostile pattern of any length costs no more memory than the catalog's
    /// longest word.
    init(pattern: [UInt8], limit: Int) {
        self.pattern = pattern
        self.limit = limit
    }

    /// Distances from the pattern to `word` (`full`) and to the best start of `word` (`prefix`);
    /// each `nil` when above the limit.
    mutating func compare(with word: [UInt8]) -> (full: Int?, prefix: Int?) {
        compare(with: word[...])
    }

    /// As ``compare(with:)-(Array)``, on a slice of a larger buffer.
    ///
    /// Time is O(min(pattern, word) × limit): words too short to be within reach are refused at once, and
    /// the pass stops at the first row whose band holds nothing within the limit.
    mutating func compare(with word: ArraySlice<UInt8>) -> (full: Int?, prefix: Int?) {
        let m = pattern.count, k = limit
        guard word.count + k >= m else { return (nil, nil) }
        let width = min(word.count, m + k)  // longer starts of `word` cannot be within the limit
        let rowLength = width + 1
        if rows.count < 3 * rowLength { rows = [Int](repeating: 0, count: 3 * rowLength) }
        let over = k + 1
        guard m > 0 else {
            // Every start of `word` up to `k` letters long is within the limit; the best is the empty one.
            return (word.count <= k ? word.count : nil, 0)
        }
        let (full, prefix) = pattern.withUnsafeBufferPointer { p in
            word.withUnsafeBufferPointer { w in
                rows.withUnsafeMutableBufferPointer { d -> (Int?, Int?) in
                    // Row i lives at offset (i % 3) × rowLength; only the band and one cell either side are
                    // written, and only those are read by the next two rows.
                    for j in 0...width { d[j] = j <= k ? j : over }
                    var row = 0
                    for i in 1...m {
                        let previous = row
                        let beforePrevious = (i + 1) % 3 * rowLength
                        row = i % 3 * rowLength
                        let low = max(1, i - k), high = min(width, i + k)
                        if low - 1 > width { return (nil, nil) }  // the band has left the word: nothing is within reach
                        d[row] = i <= k ? i : over
                        if low > 1 { d[row + low - 1] = over }
                        var rowMinimum = d[row + low - 1]
                        for j in stride(from: low, through: high, by: 1) {
                            let cost = p[i - 1] == w[j - 1] ? 0 : 1
                            let above = j <= i - 1 + k ? d[previous + j] : over
                            var value = min(above + 1, d[row + j - 1] + 1, d[previous + j - 1] + cost)
                            if i > 1, j > 1, p[i - 1] == w[j - 2], p[i - 2] == w[j - 1] {
                                value = min(value, d[beforePrevious + j - 2] + 1)
                            }
                            d[row + j] = min(value, over)
                            rowMinimum = min(rowMinimum, d[row + j])
                        }
                        if high < width { d[row + high + 1] = over }
                        if rowMinimum > k { return (nil, nil) }
                    }
                    let full: Int? = word.count <= width && d[row + word.count] <= k ? d[row + word.count] : nil
                    var best = over
                    for j in max(0, m - k)...width { best = min(best, d[row + j]) }
                    return (full, best <= k ? best : nil)
                }
            }
        }
        return (full, prefix)
    }
}
