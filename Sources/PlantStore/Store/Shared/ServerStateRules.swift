import Foundation

/// The rules both stores apply before writing the server's shared state.
package enum ServerStateRules {
    /// The only secret name the schema allows.
    package static let secretNames: Set<String> = ["session"]
    /// A secret's length in bytes.
    package static let secretLength = 32

    /// Refuses a secret name or value the schema would refuse, with a clear error.
    package static func checkSecret(name: String, value: Data? = nil) throws(StoreError) {
        guard secretNames.contains(name) else { throw .invalid("'\(name)' is not a server secret PlantGuide keeps.") }
        if let value, value.count != secretLength {
            throw .invalid("A server secret must be \(secretLength) bytes, not \(value.count).")
        }
    }

    /// Refuses a calendar token that is not 64 lowercase hexadecimal digits.
    package static func checkCalendarToken(_ token: String) throws(StoreError) {
        guard isHex64(token) else { throw .invalid("A calendar token is 64 lowercase hexadecimal digits.") }
    }

    /// Refuses an upload the schema would refuse, with a clear error.
    package static func checkUpload(_ upload: RecentUploadRow) throws(StoreError) {
        guard (16...64).contains(upload.id.utf8.count) else { throw .invalid("An upload id has 16 to 64 characters.") }
        guard upload.sessionHash.utf8.count == 64 else { throw .invalid("An upload's session hash has 64 characters.") }
        guard upload.expiresAt > upload.createdAt else { throw .invalid("An upload must expire after it is made.") }
        guard upload.photos.allSatisfy({ isHex64($0.sha256) }) else {
            throw .invalid("An upload's photos are named by their SHA-256 (64 lowercase hexadecimal digits).")
        }
        guard (try? JSONSerialization.jsonObject(with: Data(upload.outcome.utf8), options: [.fragmentsAllowed])) != nil else {
            throw .invalid("An upload's outcome is not JSON.")
        }
    }

    /// The photos as the store keeps them: a JSON array of `{sha256, kind, organ}`.
    package static func photosJSON(_ photos: [RecentUploadPhoto]) throws(StoreError) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        do {
            return String(decoding: try encoder.encode(photos), as: UTF8.self)
        } catch {
            throw .invalid("The upload's photos could not be written as JSON: \(error)")
        }
    }

    /// The photos of a stored row; none when the text is not the expected JSON (the schema checks it is an array).
    package static func photos(fromJSON text: String) -> [RecentUploadPhoto] {
        (try? JSONDecoder().decode([RecentUploadPhoto].self, from: Data(text.utf8))) ?? []
    }

    /// The SHA-256s the forgotten uploads' photos name, each once, sorted.
    package static func photoHashes(ofForgotten photos: [String]) -> [String] {
        Array(Set(photos.flatMap { Self.photos(fromJSON: $0).map(\.sha256) })).sorted()
    }

    private static func isHex64(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}
