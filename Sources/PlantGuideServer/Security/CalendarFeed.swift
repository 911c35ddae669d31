import Foundation
import PlantGuideCore
import PlantStore
import Synchronization

/// The secret address of the care calendar, for phone calendars that poll it and cannot log in: anyone with the
/// address can read the care tasks (nothing else), so it has its own random token, made and revoked in Settings.
///
/// The token is kept in the collection's store (`household.calendarToken`), so every replica serves the address one of
/// them made; without a store, in a file of the data directory (readable by the server's user only), or only in
/// memory when there is no data directory.
public final class CalendarFeed: Sendable {
    private let file: URL?
    private let token: Mutex<String?>
    private let store: (any ServerStateStore)?
    private let household: Int64

    /// A feed whose token is kept in `file` (`nil`: in memory only).
    public init(file: URL?) {
        self.file = file
        let stored = file.flatMap { try? String(contentsOf: $0, encoding: .utf8) }?.trimmingCharacters(in: .whitespacesAndNewlines)
        token = Mutex(stored.flatMap { Self.isWellFormed($0) ? $0 : nil })
        store = nil
        household = CollectionDatabase.defaultHouseholdId
    }

    /// A feed whose token is a household's in `store`, read on every use.
    public init(store: any ServerStateStore, household: Int64 = CollectionDatabase.defaultHouseholdId) {
        file = nil
        token = Mutex(nil)
        self.store = store
        self.household = household
    }

    /// The current token, if the feed is on.
    public func current() async throws -> String? {
        if let store { return try await store.calendarToken(household: household) }
        return token.withLock { $0 }
    }

    /// The token a file-backed feed holds (what an import moves into the store).
    var storedToken: String? { token.withLock { $0 } }

    /// Turns the feed on with a new token; the old address stops working at once.
    @discardableResult
    public func renew() async throws -> String {
        let new = secureRandomBytes(32).map { String(format: "%02x", $0) }.joined()
        if let store {
            try await store.setCalendarToken(new, household: household)
            return new
        }
        if let file {
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(new.utf8).write(to: file, options: .atomic)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
        }
        token.withLock { $0 = new }
        return new
    }

    /// Turns the feed off; its address stops working.
    public func revoke() async throws {
        if let store {
            try await store.setCalendarToken(nil, household: household)
            return
        }
        if let file, FileManager.default.fileExists(atPath: file.path) { try FileManager.default.removeItem(at: file) }
        token.withLock { $0 = nil }
    }

    /// Whether `candidate` is the current token (compared in constant time).
    public func accepts(_ candidate: String) async -> Bool {
        guard let current = try? await current() else { return false }
        return constantTimeEqual(Array(candidate.utf8), Array(current.utf8))
    }

    /// 64 lowercase hexadecimal digits.
    static func isWellFormed(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}
