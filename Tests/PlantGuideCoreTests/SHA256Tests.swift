import Foundation
import PlantGuideCore
import Testing

/// The one SHA-256 every module uses (photo names, cache keys, checkpoint digests).
@Suite struct SHA256Tests {
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
    ])
    func sha256MatchesTheStandardVectors(input: String, expected: String) {
        #expect(sha256Hex(Data(input.utf8)) == expected)
    }

    @Test func sha256OfAMillionAs() {
        #expect(sha256Hex(Data(repeating: 0x61, count: 1_000_000))
            == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func streamingEqualsOneShot() {
        let data = Data((0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        var hasher = SHA256Hasher()
        for start in stride(from: 0, to: data.count, by: 997) {
            hasher.update(data[start..<min(start + 997, data.count)])
        }
        #expect(hasher.finalize().map { String(format: "%02x", $0) }.joined() == sha256Hex(data))
    }
}
