import Crypto
import Foundation
import PlantGuideCore
import PlantStore

/// What a reminder lets people do without opening the app: mark the digest's tasks done, or put them off to tomorrow.
public enum ReminderAction: String, Sendable, Codable, CaseIterable {
    /// Log each task as done today.
    case done
    /// Snooze each task by one day.
    case tomorrow
}

/// A signed, expiring permission to apply one action to the tasks of one digest: what a notification's "Done" and
/// "Tomorrow" buttons send back (they act without a log-in, so the token is the whole authority). It names the
/// household and each (plant, task), so it can do nothing else, and it expires 36 hours after it was made.
///
/// The form is `<payload>.<tag>`, both base64url: the payload is JSON, the tag its HMAC-SHA256 under a key derived from
/// the server's VAPID key (so replicas sharing the data directory agree, and no other secret is kept).
public struct ReminderActionToken: Sendable, Hashable, Codable {
    /// How long a token may be used.
    public static let lifetime: TimeInterval = 36 * 3_600
    /// The most tasks one token covers (a longer digest offers no buttons: the notification's tap opens Care).
    public static let maximumItems = 20

    /// One task the action applies to.
    public struct Item: Sendable, Hashable, Codable {
        public var plantId: Int64
        public var task: CareTask
    }

    public var household: Int64
    /// The household's day of the digest.
    public var day: CalendarDay
    public var action: ReminderAction
    public var items: [Item]
    /// When it stops working, in seconds since 1970.
    public var expires: Int
    /// The member the digest was for, whom the care log records as having done the tasks.
    public var by: String?

    private enum CodingKeys: String, CodingKey {
        case household = "h", day = "d", action = "a", items = "i", expires = "e", by = "b"
    }

    /// The token for `action` on a digest's tasks, or `nil` when the digest lists none or too many.
    public init?(action: ReminderAction, digest: ReminderDigest, now: Date) {
        let items = digest.items.compactMap { item in CareTask(rawValue: item.task).map { Item(plantId: item.plantId, task: $0) } }
        guard !items.isEmpty, items.count <= Self.maximumItems else { return nil }
        household = digest.household
        day = digest.day
        self.action = action
        self.items = items
        by = digest.member
        expires = Int(now.addingTimeInterval(Self.lifetime).timeIntervalSince1970)
    }

    /// A digest's signed tokens by action (`done`, `tomorrow`), or `nil` when it offers none (no tasks, or too many).
    public static func tokens(for digest: ReminderDigest, key: SymmetricKey, now: Date) -> [String: String]? {
        var tokens: [String: String] = [:]
        for action in ReminderAction.allCases {
            guard let token = ReminderActionToken(action: action, digest: digest, now: now),
                  let text = try? token.signed(with: key) else { return nil }
            tokens[action.rawValue] = text
        }
        return tokens
    }

    /// The token as text, signed with `key`.
    public func signed(with key: SymmetricKey) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let payload = try encoder.encode(self)
        let tag = HMAC<SHA256>.authenticationCode(for: payload, using: key)
        return Base64URL.encode(payload) + "." + Base64URL.encode(Data(tag))
    }

    /// The token in `text` when its tag is right and it has not expired at `now`.
    public static func verified(_ text: String, key: SymmetricKey, now: Date) throws(ReminderActionError) -> ReminderActionToken {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard text.utf8.count <= 4_096, parts.count == 2, let payload = Base64URL.decode(String(parts[0])),
              let tag = Base64URL.decode(String(parts[1])) else { throw .malformed }
        guard HMAC<SHA256>.isValidAuthenticationCode(tag, authenticating: payload, using: key) else { throw .forged }
        guard let token = try? JSONDecoder().decode(ReminderActionToken.self, from: payload) else { throw .malformed }
        guard Double(token.expires) > now.timeIntervalSince1970 else { throw .expired }
        return token
    }
}

/// Why a reminder's action was refused.
public enum ReminderActionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Not a token at all.
    case malformed
    /// Its signature is wrong (changed, or made by another server).
    case forged
    /// Too old: the reminder was sent more than 36 hours ago.
    case expired
    /// The server cannot check tokens (its VAPID key could not be read or made).
    case unavailable

    public var description: String {
        switch self {
        case .malformed: "This is not a reminder's action."
        case .forged: "This reminder's action is not signed by this server."
        case .expired: "This reminder is too old to act on: open PlantGuide's Care page instead."
        case .unavailable: "Reminder actions are not available on this server."
        }
    }
}

/// What an action did.
public struct ReminderActionOutcome: Sendable, Hashable, Codable {
    public var action: ReminderAction
    /// Tasks logged as done (or snoozed) now.
    public var changed: Int
    /// Tasks left as they were: already done today (a second tap), or a plant since removed.
    public var unchanged: Int
}

extension VAPIDKeys {
    /// The key reminder action tokens are signed with: derived from the VAPID private key (HKDF-SHA256).
    public var actionKey: SymmetricKey {
        HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: privateKey.rawRepresentation),
            info: Data("PlantGuide reminder actions v1".utf8), outputByteCount: 32
        )
    }
}

extension ReminderRunner {
    /// Applies a reminder's action: each of its tasks done today in the household's time zone (unless already done
    /// today, so a second tap changes nothing) or snoozed to tomorrow, recorded as done by the digest's member. Plants
    /// removed since are passed over.
    public func perform(_ text: String, now: Date) async throws -> ReminderActionOutcome {
        guard let key = try? webPush.get().keys.actionKey else { throw ReminderActionError.unavailable }
        let token = try ReminderActionToken.verified(text, key: key, now: now)
        let care = CareSettings(settings: try await store.householdSettings(household: token.household), defaults: careDefaults)
        let planner = CarePlanner(store: store, hemisphere: care.hemisphere, timeZone: care.timeZone, now: { now })
        let today = CalendarDay(now, in: care.timeZone)
        // A digest's buttons act on its day (or the morning after, for an evening reminder), never on later days' care.
        guard today == token.day || today == token.day.adding(days: 1) else { throw ReminderActionError.expired }
        var outcome = ReminderActionOutcome(action: token.action, changed: 0, unchanged: 0)
        try await HouseholdScope.$current.withValue(HouseholdScope(household: token.household, userName: token.by)) {
            for item in token.items {
                do {
                    switch token.action {
                    case .done:
                        let current = try await planner.schedule(forPlant: item.plantId).first { $0.task == item.task }
                        if current?.lastDone == today {
                            outcome.unchanged += 1
                            continue
                        }
                        try await planner.markDone(plantId: item.plantId, task: item.task)
                    case .tomorrow:
                        try await planner.snooze(plantId: item.plantId, task: item.task, days: 1)
                    }
                    outcome.changed += 1
                } catch StoreError.plantNotFound {
                    outcome.unchanged += 1
                }
            }
        }
        return outcome
    }
}
