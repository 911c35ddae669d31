import Foundation

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
