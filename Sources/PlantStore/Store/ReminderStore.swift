import Foundation
import PlantGuideCore

/// How a reminder reaches people.
public enum ReminderChannelKind: String, Sendable, Codable, CaseIterable {
    /// A POST of the digest as text to an ntfy topic URL (https://ntfy.sh/… or a self-hosted server).
    case ntfy
    /// A POST of the digest as JSON to any URL (Home Assistant, Apprise and the like).
    case webhook
    /// A Web Push message to a browser (RFC 8030, encrypted per RFC 8291, signed per RFC 8292): the target is the push
    /// service's endpoint, the token the subscription's keys (`p256dh.auth`, base64url).
    case webpush
    /// An email (text and HTML) through the installation's SMTP server: the target is `mailto:` and the address.
    case email
}

/// A place a household's daily care digest is sent to.
///
/// The access token (ntfy's) is kept in the store and never leaves it through this record's encoding: `--json` output
/// and logs only say whether one is set, and show the target with its path cut (an ntfy topic is as good as a password).
public struct ReminderChannel: Sendable, Hashable, Encodable {
    /// The channel's id.
    public var id: Int64
    /// The household whose care it reports.
    public var household: Int64
    /// How the digest is sent.
    public var kind: ReminderChannelKind
    /// Where it is sent (an http or https URL).
    public var target: String
    /// The access token sent with it (`Authorization: Bearer …`), if any. Never encoded.
    public var token: String?
    /// The local time of day the digest is sent at, in minutes after midnight in the household's time zone.
    public var minuteOfDay: Int
    /// Whether digests are sent; a channel that answers 404/410 or keeps failing is turned off.
    public var enabled: Bool
    /// Why the channel was turned off, or what its last failure was.
    public var note: String?
    /// When it was added.
    public var createdAt: Date
    /// The member whose channel it is (their reminder hour and quiet hours, their assigned tasks), or `nil` for a
    /// channel of the whole household (every task).
    public var member: Int64?
    /// That member's name.
    public var memberName: String?
    /// The hours in which nothing is sent (a late retry or a catch-up waits for their end).
    public var quietHours: QuietHours?

    /// A channel as a store reads it.
    public init(
        id: Int64, household: Int64, kind: ReminderChannelKind, target: String, token: String?, minuteOfDay: Int,
        enabled: Bool, note: String?, createdAt: Date, member: Int64? = nil, memberName: String? = nil,
        quietHours: QuietHours? = nil
    ) {
        self.member = member
        self.memberName = memberName
        self.quietHours = quietHours
        self.id = id
        self.household = household
        self.kind = kind
        self.target = target
        self.token = token
        self.minuteOfDay = minuteOfDay
        self.enabled = enabled
        self.note = note
        self.createdAt = createdAt
    }

    /// The time of day as people write it: "08:00".
    public var timeOfDay: String { ReminderRules.timeOfDay(minuteOfDay) }

    /// The target with all but the first characters of its path cut: `https://ntfy.sh/pla…`; an email address with
    /// all but its first letter and domain cut: `a…@example.org`.
    public var shownTarget: String {
        if kind == .email {
            let address = target.hasPrefix("mailto:") ? String(target.dropFirst(7)) : target
            let parts = address.split(separator: "@")
            guard parts.count == 2 else { return "…" }
            return "\(parts[0].prefix(1))…@\(parts[1])"
        }
        guard let url = URL(string: target), let scheme = url.scheme, let host = url.host else { return "…" }
        let port = url.port.map { ":\($0)" } ?? ""
        let path = url.path
        let shown = path.count > 4 ? String(path.prefix(4)) + "…" : path
        return "\(scheme)://\(host)\(port)\(shown)"
    }

    private enum CodingKeys: String, CodingKey {
        case id, household, kind, target, tokenIsSet, timeOfDay, minuteOfDay, enabled, note, createdAt, member, quietHours
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(household, forKey: .household)
        try container.encode(kind, forKey: .kind)
        try container.encode(shownTarget, forKey: .target)
        try container.encode(token != nil, forKey: .tokenIsSet)
        try container.encode(timeOfDay, forKey: .timeOfDay)
        try container.encode(minuteOfDay, forKey: .minuteOfDay)
        try container.encode(enabled, forKey: .enabled)
        try container.encodeIfPresent(note, forKey: .note)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encodeIfPresent(memberName, forKey: .member)
        try container.encodeIfPresent(quietHours, forKey: .quietHours)
    }
}

/// Local hours in which no reminder is sent, e.g. 22:00 to 07:00 (they may run past midnight).
public struct QuietHours: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The first quiet minute after midnight.
    public var from: Int
    /// The first minute after midnight that is not quiet any more.
    public var until: Int

    /// Quiet from `from` until `until` (minutes after midnight; not equal).
    public init(from: Int, until: Int) {
        self.from = from
        self.until = until
    }

    /// Quiet hours as people write them: `22:00-07:00` (or `22-7`); `nil` for anything else.
    public init?(parsing text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let from = ReminderRules.minuteOfDay(parsing: String(parts[0])),
              let until = ReminderRules.minuteOfDay(parsing: String(parts[1])), from != until else { return nil }
        self.init(from: from, until: until)
    }

    /// Whether a local minute of the day is quiet.
    public func contains(minuteOfDay minute: Int) -> Bool {
        from < until ? (from..<until).contains(minute) : (minute >= from || minute < until)
    }

    /// "22:00-07:00".
    public var description: String { "\(ReminderRules.timeOfDay(from))-\(ReminderRules.timeOfDay(until))" }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let parsed = QuietHours(parsing: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not quiet hours: \(text)"))
        }
        self = parsed
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

/// A channel to add.
public struct NewReminderChannel: Sendable, Hashable {
    public var kind: ReminderChannelKind
    public var target: String
    public var token: String?
    public var minuteOfDay: Int
    /// The member whose channel it is (of the household it is added to), or `nil` for the whole household's.
    public var member: Int64?
    /// The hours in which nothing is sent.
    public var quietHours: QuietHours?

    /// A channel sending at `minuteOfDay` (480: 08:00, the default).
    public init(
        kind: ReminderChannelKind, target: String, token: String? = nil, minuteOfDay: Int = 480, member: Int64? = nil,
        quietHours: QuietHours? = nil
    ) {
        self.member = member
        self.quietHours = quietHours
        self.kind = kind
        self.target = target
        self.token = token
        self.minuteOfDay = minuteOfDay
    }
}

/// One channel's digest of one day: claimed by the sender that sends it, then sent, found empty or failed.
public struct ReminderDigestRecord: Sendable, Hashable, Codable {
    public var channel: Int64
    /// The household's local day the digest is for.
    public var day: CalendarDay
    /// How many times sending was begun.
    public var attempts: Int
    /// When the last attempt was begun.
    public var claimedAt: Date
    /// When it was sent (or found to have nothing to say); `nil` while not done.
    public var sentAt: Date?
    /// How many tasks it listed (0: nothing was due, nothing sent).
    public var tasks: Int
    /// Why the last attempt failed.
    public var lastError: String?
    /// When it may be tried again; `nil` when it will not be (sent, or given up).
    public var retryAt: Date?

    /// A record as a store reads it.
    public init(
        channel: Int64, day: CalendarDay, attempts: Int, claimedAt: Date, sentAt: Date?, tasks: Int, lastError: String?,
        retryAt: Date?
    ) {
        self.channel = channel
        self.day = day
        self.attempts = attempts
        self.claimedAt = claimedAt
        self.sentAt = sentAt
        self.tasks = tasks
        self.lastError = lastError
        self.retryAt = retryAt
    }
}

/// How an attempt at a digest ended.
public enum ReminderDigestOutcome: Sendable, Hashable {
    /// Sent, listing this many tasks.
    case sent(tasks: Int)
    /// Nothing was due: nothing sent, and nothing will be for this day.
    case nothingDue
    /// It failed; tried again from `retryAt`, or never when `nil`.
    case failed(String, retryAt: Date?)
}

/// The reminder channels of households and the claim rows that make each (channel, day) digest go out once, however
/// many senders (replicas, `notify run` beside a server) try at the same time.
public protocol ReminderStore: Sendable {
    /// A household's channels, oldest first.
    func reminderChannels(household: Int64) async throws(StoreError) -> [ReminderChannel]
    /// Every enabled channel of every household (what a sender looks at).
    func enabledReminderChannels() async throws(StoreError) -> [ReminderChannel]
    /// Adds a channel (checked by ``ReminderRules``).
    func addReminderChannel(_ channel: NewReminderChannel, household: Int64, now: Date) async throws(StoreError)
        -> ReminderChannel
    /// Removes a household's channel and its digests; `false` when it has none with this id.
    func removeReminderChannel(id: Int64, household: Int64) async throws(StoreError) -> Bool
    /// Turns a channel on or off, with why.
    func setReminderChannel(id: Int64, enabled: Bool, note: String?) async throws(StoreError)
    /// Claims a channel's digest of a day for sending at `now`: the attempt's number (1 for the first) when this caller
    /// may send it, `nil` when it was sent or found empty, was given up, another sender holds it (until `lease` after
    /// its claim, so a sender killed mid-send is replaced then), or its retry time has not come.
    func claimReminderDigest(channel: Int64, day: CalendarDay, now: Date, lease: TimeInterval) async throws(StoreError) -> Int?
    /// Records how the claimed attempt ended; `false` (nothing recorded) when that attempt is no longer the latest: a
    /// sender slower than its lease was replaced, and the replacement's outcome stands.
    @discardableResult
    func finishReminderDigest(
        channel: Int64, day: CalendarDay, attempt: Int, outcome: ReminderDigestOutcome, now: Date
    ) async throws(StoreError) -> Bool
    /// A channel's digests, newest day first.
    func reminderDigests(channel: Int64, limit: Int) async throws(StoreError) -> [ReminderDigestRecord]
    /// Sets a member's reminder hour and quiet hours on every channel of theirs in `household` (`member` `nil`: the
    /// household's own channels, those of no member); how many changed.
    @discardableResult
    func setReminderSchedule(
        member: Int64?, household: Int64, minuteOfDay: Int, quietHours: QuietHours?
    ) async throws(StoreError) -> Int
    /// Who looks after the plants of a household: its members, each assigned plant's assignee, and for plants taking
    /// turns who did each task last.
    func careAssignments(household: Int64) async throws(StoreError) -> CareAssignments
    /// Assigns a plant of `household` to a member or to turns, or (`nil`) back to everyone.
    /// - Throws: ``StoreError/plantNotFound(_:)`` for a plant of another household, ``StoreError/invalid(_:)`` for a
    ///   member of another household.
    func setCareAssignment(plant: Int64, household: Int64, to assignee: CareAssignee?) async throws(StoreError)
}

/// The rules both stores apply to reminder channels.
public enum ReminderRules {
    /// At most this many channels per household.
    public static let maximumChannels = 20
    /// The longest target URL or token kept.
    public static let maximumTargetCharacters = 2_000
    /// The longest note kept (longer ones are cut).
    public static let maximumNoteCharacters = 500

    /// Checks a channel to add: an http(s) URL with a host and no credentials in it, a sane token, a time of day.
    public static func check(_ channel: NewReminderChannel) throws(StoreError) {
        let target = channel.target
        if channel.kind == .email {
            guard target.hasPrefix("mailto:"), isEmailAddress(String(target.dropFirst(7))) else {
                throw .invalid("An email reminder needs an address like you@example.org, not '\(target.prefix(80))'.")
            }
            guard channel.token == nil else { throw .invalid("An email reminder takes no access token.") }
            try check(minuteOfDay: channel.minuteOfDay, quietHours: channel.quietHours)
            return
        }
        guard target.count <= maximumTargetCharacters, let url = URL(string: target),
              let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme), let host = url.host, !host.isEmpty
        else {
            throw .invalid("A reminder target must be an http or https URL like https://ntfy.sh/my-plants, not '\(target.prefix(80))'.")
        }
        guard url.user == nil, url.password == nil else {
            throw .invalid("Put no user name or password in the URL; give an access token instead.")
        }
        if channel.kind == .webpush {
            let parts = channel.token?.split(separator: ".", omittingEmptySubsequences: false) ?? []
            guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty }) else {
                throw .invalid("A Web Push channel needs the subscription's keys (p256dh and auth).")
            }
        }
        if let token = channel.token {
            guard !token.isEmpty, token.count <= maximumTargetCharacters,
                  token.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
                throw .invalid("An access token is 1 to \(maximumTargetCharacters) printable characters without spaces.")
            }
        }
        try check(minuteOfDay: channel.minuteOfDay, quietHours: channel.quietHours)
    }

    /// The reminder hour of a member without channels, and of a new channel when none is given: 08:00.
    public static let standardMinuteOfDay = 480

    /// The hour and quiet hours `member`'s channels share (`nil`: the household's own channels), from the first of
    /// them in `channels`; `nil` when they have none.
    public static func schedule(of member: Int64?, in channels: [ReminderChannel]) -> (minuteOfDay: Int, quietHours: QuietHours?)? {
        channels.first { $0.member == member }.map { ($0.minuteOfDay, $0.quietHours) }
    }

    /// Checks a reminder hour and quiet hours.
    public static func check(minuteOfDay: Int, quietHours: QuietHours?) throws(StoreError) {
        guard (0..<1_440).contains(minuteOfDay) else { throw .invalid("The time of day must be from 00:00 to 23:59.") }
        if let quietHours {
            guard (0..<1_440).contains(quietHours.from), (0..<1_440).contains(quietHours.until),
                  quietHours.from != quietHours.until else {
                throw .invalid("Quiet hours run from one time of day to another, like 22:00-07:00.")
            }
        }
    }

    /// A local time of day as people type it (`8`, `08:00`, `7:30`, or a browser's `08:00:00`) in minutes after
    /// midnight; `nil` for anything else.
    public static func minuteOfDay(parsing text: String) -> Int? {
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count), (1...2).contains(parts[0].count), let hour = Int(parts[0]), (0...23).contains(hour)
        else { return nil }
        guard parts.count > 1 else { return hour * 60 }
        guard parts[1].count == 2, let minute = Int(parts[1]), (0...59).contains(minute) else { return nil }
        if parts.count == 3 { guard parts[2].count == 2, let second = Int(parts[2]), (0...59).contains(second) else { return nil } }
        return hour * 60 + minute
    }

    /// Whether `text` is an address email reminders can go to: `name@domain`, printable ASCII without spaces, brackets
    /// or quotes, at most 254 characters.
    public static func isEmailAddress(_ text: String) -> Bool {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard text.utf8.count <= 254, parts.count == 2, !parts[0].isEmpty, parts[1].contains("."),
              !parts[1].hasPrefix("."), !parts[1].hasSuffix(".") else { return false }
        let forbidden = Set("<>()[]\\,;:\"' ")
        return text.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value < 0x7F } && !text.contains(where: forbidden.contains)
    }

    /// A time of day as people write it: 480 is "08:00".
    public static func timeOfDay(_ minuteOfDay: Int) -> String {
        String(format: "%02d:%02d", minuteOfDay / 60, minuteOfDay % 60)
    }

    /// A note cut to what is kept.
    public static func note(_ text: String?) -> String? {
        text.map { String($0.prefix(maximumNoteCharacters)) }
    }
}
