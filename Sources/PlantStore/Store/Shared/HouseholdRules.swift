import Foundation
import PlantGuideCore

/// The household rules both stores apply (messages included), so they refuse the same names the same way.
extension Household {
    /// Throws the clear error for a name ``isValidName(_:)`` does not accept.
    package static func checkName(_ name: String) throws(StoreError) {
        guard isValidName(name) else {
            throw .invalid("'\(name)' is not a valid household name: use 1 to 80 characters, no control characters and no "
                + "spaces at either end.")
        }
    }

    /// The error for a name another household has already (in any letter case).
    package static func nameTaken(_ name: String) -> StoreError {
        .invalid("A household named '\(name)' exists already (names ignore letter case).")
    }
}

/// How an archive's rows enter a household, the same on every backend.
package enum ImportIdentity {
    /// The UUID a plant, care event or identification takes in `household` when another household holds the archive's
    /// UUID: derived from both (a name-based UUID, version 5 layout, over SHA-256), so importing the same archive again
    /// finds the row instead of adding it twice, and never touches the other household's row.
    package static func uuid(_ original: String, household: Int64) -> String {
        var bytes = Array(Data(sha256Hex(Data("plantguide-import:\(household):\(original.lowercased())".utf8)).utf8).prefix(32))
        // 32 hexadecimal digits: version 5 in the 13th, the RFC 4122 variant in the 17th.
        bytes[12] = UInt8(ascii: "5")
        let variant = "89ab".utf8.map { $0 }
        bytes[16] = variant[Int(bytes[16]) % 4]
        let hex = String(decoding: bytes, as: UTF8.self)
        let parts = [hex.prefix(8), hex.dropFirst(8).prefix(4), hex.dropFirst(12).prefix(4), hex.dropFirst(16).prefix(4), hex.dropFirst(20)]
        return parts.joined(separator: "-")
    }
}
