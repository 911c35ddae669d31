import Foundation
import PlantGuideCore
import PlantGuideLive
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

    /// A feed whose token is kept in `file` (`nil`: in memory only); it serves household 1, the only one without a
    /// store.
    public init(file: URL?) {
        self.file = file
        let stored = file.flatMap { try? String(contentsOf: $0, encoding: .utf8) }?.trimmingCharacters(in: .whitespacesAndNewlines)
        token = Mutex(stored.flatMap { Self.isWellFormed($0) ? $0 : nil })
        store = nil
    }

    /// A feed whose tokens are the households' in `store`, read on every use: each household has its own address,
    /// made and revoked by its owners, and the household is the one the current task acts for
    /// (``HouseholdScope/current``).
    public init(store: any ServerStateStore) {
        file = nil
        token = Mutex(nil)
        self.store = store
    }

    /// The household the current task acts for; a store-backed feed refuses to act for none.
    private func household() throws(StoreError) -> Int64 {
        try HouseholdScope.resolve(default: nil, operation: "use the calendar address").household
    }

    /// The current household's token, if its feed is on.
    public func current() async throws -> String? {
        if let store { return try await store.calendarToken(household: try household()) }
        return token.withLock { $0 }
    }

    /// The token a file-backed feed holds (what an import moves into the store).
    var storedToken: String? { token.withLock { $0 } }

    /// Turns the current household's feed on with a new token; its old address stops working at once.
    @discardableResult
    public func renew() async throws -> String {
        let new = secureRandomBytes(32).map { String(format: "%02x", $0) }.joined()
        if let store {
            try await store.setCalendarToken(new, household: try household())
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

    /// Turns the current household's feed off; its address stops working.
    public func revoke() async throws {
        if let store {
            try await store.setCalendarToken(nil, household: try household())
            return
        }
        if let file, FileManager.default.fileExists(atPath: file.path) { try FileManager.default.removeItem(at: file) }
        token.withLock { $0 = nil }
    }

    /// The household whose address `candidate` is, or `nil` for a wrong, revoked or unreadable token. A file-backed
    /// feed compares in constant time; a store finds the token through its unique index.
    public func household(for candidate: String) async -> Int64? {
        guard Self.isWellFormed(candidate) else { return nil }
        if let store { return try? await store.household(calendarToken: candidate) }
        guard let current = token.withLock({ $0 }) else { return nil }
        return constantTimeEqual(Array(candidate.utf8), Array(current.utf8)) ? HouseholdScope.home.household : nil
    }

    /// 64 lowercase hexadecimal digits.
    static func isWellFormed(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}
