/// Edit distance with adjacent transpositions (optimal string alignment), bounded: once the distance
/// is certain to exceed `limit` the work stops. Works on bytes of folded text.
enum EditDistance {
    /// The distance between `a` and `b`, or `nil` if it is greater than `limit`.
    static func distance(_ a: [UInt8], _ b: [UInt8], limit: Int) -> Int? {
        if abs(a.count - b.count) > limit { return nil }
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) <= limit ? max(a.count, b.count) : nil }
        let width = b.count + 1
        // Three rows: two back (for transpositions), previous and current.
        var twoBack = [Int](repeating: 0, count: width)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: width)
        for i in 1...a.count {
            current[0] = i
            var rowMinimum = current[0]
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var value = Swift.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    value = Swift.min(value, twoBack[j - 2] + 1)
                }
                current[j] = value
                rowMinimum = Swift.min(rowMinimum, value)
            }
            if rowMinimum > limit { return nil }
            swap(&twoBack, &previous)
            swap(&previous, &current)
        }
        let result = previous[b.count]
        return result <= limit ? result : nil
    }

    /// How many typos a query word of this length may carry: none for short words, where a typo
    /// would match too much, one from four letters, two from eight.
    static func allowance(forLength length: Int) -> Int {
        switch length {
        case ..<4: 0
        case 4..<8: 1
        default: 2
        }
    }
}
