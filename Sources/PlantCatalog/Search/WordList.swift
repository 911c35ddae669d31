/// Byte strings stored end to end in one buffer, so hot loops touch one allocation instead of one
/// per word. Each entry also keeps a 32-bit mask of the letters it contains, a cheap first test for
/// typo matching: a word missing more distinct letters of the query than the allowed edits cannot
/// be within reach.
struct WordList: Sendable {
    private(set) var bytes: [UInt8] = []
    private(set) var starts: [Int32] = [0]
    private(set) var masks: [UInt32] = []

    var count: Int { masks.count }

    mutating func append(_ word: [UInt8]) {
        bytes += word
        starts.append(Int32(bytes.count))
        masks.append(Self.letterMask(word))
    }

    func word(_ index: Int) -> ArraySlice<UInt8> {
        bytes[Int(starts[index])..<Int(starts[index + 1])]
    }

    /// Bit `n` set when the word contains the `n`-th letter a–z (other bytes share bit 26 onwards).
    static func letterMask(_ word: some Sequence<UInt8>) -> UInt32 {
        var mask: UInt32 = 0
        for byte in word {
            let bit = byte >= 97 && byte <= 122 ? UInt32(byte - 97) : 26 + UInt32(byte % 6)
            mask |= 1 << bit
        }
        return mask
    }
}
