import Foundation
import PlantGuideCore
import PlantHTTP
import PlantStore

/// What happened to one channel in a run.
public struct ReminderRunResult: Sendable, Hashable, Codable {
    /// What the run did with the channel's digest.
    public enum State: String, Sendable, Codable {
        /// Sent now.
        case sent
        /// Nothing was due: nothing sent (and nothing will be for this day).
        case nothingDue
        /// Its time of day has not come.
        case notYet
        /// Its time has come, but it is the channel's quiet hours: it waits until `sendAt`, their end.
        case quiet
        /// Already sent or found empty today, given up, or held by another sender.
        case handled
        /// It failed (tried again later unless the channel was turned off).
        case failed
        /// A dry run: it would be sent now.
        case wouldSend
    }

    public var channel: Int64
    public var household: Int64
    public var kind: ReminderChannelKind
    /// The household's local day.
    public var day: CalendarDay
    /// When the day's digest is due to go out.
    public var sendAt: Date
    public var state: State
    /// How many tasks it lists (sent or would be).
    public var tasks: Int
    /// Why it failed.
    public var error: String?
}

/// Sends each channel's daily digest once, at its time of day in its household's time zone.
///
/// A run looks at every enabled channel: when the channel's time has come today (local day, across daylight-saving
/// changes) and today's digest is not done, it claims the digest (``ReminderStore/claimReminderDigest(channel:day:now:lease:)``),
/// builds it from the household's due list at that moment (so a task done or snoozed meanwhile is not in it) and sends
/// it. Only today's digest is ever sent: after days without a run, one digest catches up, never one per missed day. The
/// server's scheduler and `plantguide notify run` are this one code path.
public struct ReminderRunner: Sendable {
    /// How long a claim holds before another sender may take over (a sender killed mid-send is replaced then).
    public static let lease: TimeInterval = 300
    /// Waits before the 2nd, 3rd and 4th attempts; after the 4th the day's digest is given up.
    public static let backoff: [TimeInterval] = [60, 600, 3_600]
    /// A channel whose digests were given up this many days in a row is turned off.
    public static let failedDaysBeforeTurningOff = 3

    public let store: any ReminderStore & ServerStateStore & CollectionStore
    /// The installation's hemisphere and time zone, where a household chose none.
    public let careDefaults: CareSettings
    public let targets: ReminderTargets
    public let transport: ReminderTransport
    /// The server's public address, for the digest's link to the Care page.
    public let publicURL: URL?
    /// The longest a send may take from start to answer (the transport's own timeout only bounds a pause in progress).
    public let sendDeadline: Duration
    /// What Web Push is signed with, or why it cannot be (the key could not be read or made).
    public let webPush: Result<WebPushSigner, WebPushError>
    /// The SMTP server email goes through, why its settings are wrong, or `nil` when none is set up.
    public let email: Result<SMTPSettings, SMTPError>?

    /// A runner over `store`.
    public init(
        store: any ReminderStore & ServerStateStore & CollectionStore, careDefaults: CareSettings, targets: ReminderTargets,
        transport: ReminderTransport = .live, publicURL: URL? = nil, sendDeadline: Duration = .seconds(60),
        webPush: Result<WebPushSigner, WebPushError> = .failure(WebPushError("Web Push is not set up on this server")),
        email: Result<SMTPSettings, SMTPError>? = nil
    ) {
        self.email = email
        self.sendDeadline = sendDeadline
        self.webPush = webPush
        self.store = store
        self.careDefaults = careDefaults
        self.targets = targets
        self.transport = transport
        self.publicURL = publicURL
    }

    /// The environment variable naming the server operator's contact for push services (`mailto:` or https).
    public static let vapidSubjectVariable = "PLANTGUIDE_VAPID_SUBJECT"
    /// The environment variable giving the server's public address, for links in digests.
    public static let publicURLVariable = "PLANTGUIDE_PUBLIC_URL"

    /// The runner the command line and the server use: targets, the public address and the Web Push contact from the
    /// environment, the VAPID key from the data directory (made on first use). Throws when `PLANTGUIDE_PUBLIC_URL` is set
    /// and not an http(s) address; a VAPID key that cannot be read or made only keeps Web Push from working, with why.
    public static func live(
        store: any ReminderStore & ServerStateStore & CollectionStore, careDefaults: CareSettings,
        environment: [String: String], directory: DataDirectory
    ) throws(WebPushError) -> ReminderRunner {
        var publicURL: URL?
        if let text = environment[publicURLVariable], !text.isEmpty {
            guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
                throw WebPushError("\(publicURLVariable) must be an http(s) address like https://plants.example.org, not '\(text)'")
            }
            publicURL = url
        }
        let subject = environment[vapidSubjectVariable].flatMap { $0.isEmpty ? nil : $0 }
            ?? publicURL?.absoluteString ?? "mailto:plantguide@localhost"
        let webPush: Result<WebPushSigner, WebPushError>
        do {
            webPush = .success(WebPushSigner(keys: try VAPIDKeys.loadOrCreate(in: directory), subject: subject))
        } catch let error as WebPushError {
            webPush = .failure(error)
        } catch {
            webPush = .failure(WebPushError("the Web Push key could not be made: \(error)"))
        }
        let email: Result<SMTPSettings, SMTPError>?
        do {
            email = try SMTPSettings.from(environment: environment).map { .success($0) }
        } catch {
            email = .failure(error)
        }
        return ReminderRunner(
            store: store, careDefaults: careDefaults, targets: ReminderTargets(environment: environment),
            publicURL: publicURL, webPush: webPush, email: email
        )
    }

    /// The moment a channel's digest of `day` is due, in the household's time zone (on a day the clocks skip its time,
    /// the first moment after).
    public static func sendTime(of day: CalendarDay, minuteOfDay: Int, in timeZone: TimeZone) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let (year, month, date) = day.components
        let components = DateComponents(year: year, month: month, day: date, hour: minuteOfDay / 60, minute: minuteOfDay % 60)
        return calendar.date(from: components) ?? day.start(in: timeZone).addingTimeInterval(Double(minuteOfDay) * 60)
    }

    /// Runs every enabled channel at `now`; `dryRun` claims and sends nothing and says what would go out.
    public func run(now: Date, dryRun: Bool = false) async throws(StoreError) -> [ReminderRunResult] {
        var results: [ReminderRunResult] = []
        // One digest per household (or member) and run: every channel of theirs says the same.
        var digests = DigestCache()
        for (channel, care) in try await enabledChannels() {
            results.append(try await run(channel, care: care, now: now, dryRun: dryRun, digests: &digests))
        }
        return results
    }

    /// The next moment any enabled channel's digest falls due after `now` (what the server's scheduler sleeps until):
    /// its time of day, or the end of its quiet hours when that time is quiet or a send waits for them.
    public func nextSendTime(after now: Date) async throws(StoreError) -> Date? {
        var next: Date?
        for (channel, care) in try await enabledChannels() {
            var candidates: [Date] = []
            let today = CalendarDay(now, in: care.timeZone)
            for day in [today, today.adding(days: 1)] {
                let time = Self.sendTime(of: day, minuteOfDay: channel.minuteOfDay, in: care.timeZone)
                if time > now {
                    candidates.append(Self.quietEnd(channel.quietHours, at: time, in: care.timeZone) ?? time)
                    break
                }
            }
            if let end = Self.quietEnd(channel.quietHours, at: now, in: care.timeZone) { candidates.append(end) }
            for time in candidates where time > now { next = min(next ?? time, time) }
        }
        return next
    }

    /// When the quiet hours that `moment` falls in end (the first moment after it that is not quiet), or `nil` when
    /// `moment` is not quiet.
    public static func quietEnd(_ quietHours: QuietHours?, at moment: Date, in timeZone: TimeZone) -> Date? {
        guard let quietHours else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.hour, .minute], from: moment)
        guard quietHours.contains(minuteOfDay: (parts.hour ?? 0) * 60 + (parts.minute ?? 0)) else { return nil }
        let day = CalendarDay(moment, in: timeZone)
        for candidate in [day, day.adding(days: 1)] {
            let end = sendTime(of: candidate, minuteOfDay: quietHours.until, in: timeZone)
            if end > moment { return end }
        }
        return nil
    }

    /// Every enabled channel with its household's care settings, each household's read once.
    private func enabledChannels() async throws(StoreError) -> [(ReminderChannel, CareSettings)] {
        var settings: [Int64: CareSettings] = [:]
        var channels: [(ReminderChannel, CareSettings)] = []
        for channel in try await store.enabledReminderChannels() {
            let care: CareSettings
            if let known = settings[channel.household] {
                care = known
            } else {
                care = CareSettings(settings: try await store.householdSettings(household: channel.household), defaults: careDefaults)
                settings[channel.household] = care
            }
            channels.append((channel, care))
        }
        return channels
    }

    /// Sends a test message to one channel now (not a digest: nothing is claimed or recorded). Returns why it failed.
    public func test(_ channel: ReminderChannel, now: Date) async -> String? {
        let care = CareSettings(
            settings: (try? await store.householdSettings(household: channel.household)) ?? [:], defaults: careDefaults
        )
        let day = CalendarDay(now, in: care.timeZone)
        var digest = ReminderDigest(
            household: channel.household, day: day,
            due: DueList(today: day, through: day, rooms: []), publicURL: publicURL, member: Self.member(of: channel)
        )
        digest.title = "test message"
        digest.text = "PlantGuide can reach you here: daily care reminders will come at \(channel.timeOfDay)."
        switch await send(channel, digest: digest, now: now) {
        case .success: return nil
        case .failure(let failure): return failure.reason
        }
    }

    private func run(
        _ channel: ReminderChannel, care: CareSettings, now: Date, dryRun: Bool, digests: inout DigestCache
    ) async throws(StoreError) -> ReminderRunResult {
        let day = CalendarDay(now, in: care.timeZone)
        let sendAt = Self.sendTime(of: day, minuteOfDay: channel.minuteOfDay, in: care.timeZone)
        var result = ReminderRunResult(
            channel: channel.id, household: channel.household, kind: channel.kind, day: day, sendAt: sendAt, state: .notYet,
            tasks: 0, error: nil
        )
        guard now >= sendAt else { return result }
        // In quiet hours (a time of day inside them, a late retry, a catch-up) it waits for their end; when that is
        // tomorrow, tomorrow's digest says it.
        if let end = Self.quietEnd(channel.quietHours, at: now, in: care.timeZone) {
            result.sendAt = end
            result.state = .quiet
            return result
        }
        if dryRun {
            let record = try await store.reminderDigests(channel: channel.id, limit: 1).first { $0.day == day }
            if let record, record.sentAt != nil || record.retryAt.map({ $0 > now }) ?? true {
                result.state = .handled
                return result
            }
            let digest = try await cachedDigest(for: channel, day: day, care: care, now: now, in: &digests)
            result.tasks = digest.items.count
            result.state = digest.items.isEmpty ? .nothingDue : .wouldSend
            return result
        }
        guard let attempt = try await store.claimReminderDigest(channel: channel.id, day: day, now: now, lease: Self.lease) else {
            result.state = .handled
            return result
        }
        let digest = try await cachedDigest(for: channel, day: day, care: care, now: now, in: &digests)
        result.tasks = digest.items.count
        guard !digest.items.isEmpty else {
            try await store.finishReminderDigest(channel: channel.id, day: day, attempt: attempt, outcome: .nothingDue, now: now)
            result.state = .nothingDue
            return result
        }
        switch await send(channel, digest: digest, now: now) {
        case .success:
            // Sent either way; but a sender slower than its lease was replaced, and the channel is the replacement's
            // to change.
            guard try await store.finishReminderDigest(
                channel: channel.id, day: day, attempt: attempt, outcome: .sent(tasks: digest.items.count), now: now
            ) else {
                result.state = .sent
                return result
            }
            result.state = .sent
            if channel.note != nil { try await store.setReminderChannel(id: channel.id, enabled: true, note: nil) }
        case .failure(let failure):
            result.state = .failed
            result.error = failure.reason
            let retry = failure.permanent || attempt > Self.backoff.count
                ? nil : now.addingTimeInterval(Self.backoff[attempt - 1])
            guard try await store.finishReminderDigest(
                channel: channel.id, day: day, attempt: attempt, outcome: .failed(failure.reason, retryAt: retry), now: now
            ) else { return result }
            try await note(failure, on: channel, givenUp: retry == nil)
        }
        return result
    }

    /// Turns a channel off when its target is gone or refused, or when it failed for days; else notes the failure.
    private func note(_ failure: SendFailure, on channel: ReminderChannel, givenUp: Bool) async throws(StoreError) {
        if failure.permanent {
            try await store.setReminderChannel(id: channel.id, enabled: false, note: "Turned off: \(failure.reason).")
            return
        }
        if givenUp {
            let recent = try await store.reminderDigests(channel: channel.id, limit: Self.failedDaysBeforeTurningOff)
            if recent.count == Self.failedDaysBeforeTurningOff, recent.allSatisfy({ $0.sentAt == nil && $0.retryAt == nil }) {
                try await store.setReminderChannel(
                    id: channel.id, enabled: false,
                    note: "Turned off after failing \(Self.failedDaysBeforeTurningOff) days in a row; last: \(failure.reason)."
                )
                return
            }
        }
        try await store.setReminderChannel(id: channel.id, enabled: true, note: "Last attempt failed: \(failure.reason).")
    }

    /// The digests of one run by household and member, and the households' due lists and assignments they are made of.
    private struct DigestCache {
        struct Audience: Hashable {
            var household: Int64
            var member: Int64?
            var day: CalendarDay
        }

        var digests: [Audience: ReminderDigest] = [:]
        var due: [Int64: (CalendarDay, DueList)] = [:]
        var assignments: [Int64: CareAssignments] = [:]
    }

    /// The member a channel is for, or `nil` for a household's channel.
    private static func member(of channel: ReminderChannel) -> HouseholdMember? {
        channel.member.map { HouseholdMember(id: $0, name: channel.memberName ?? "member \($0)") }
    }

    private func cachedDigest(
        for channel: ReminderChannel, day: CalendarDay, care: CareSettings, now: Date, in cache: inout DigestCache
    ) async throws(StoreError) -> ReminderDigest {
        let audience = DigestCache.Audience(household: channel.household, member: channel.member, day: day)
        if let known = cache.digests[audience] { return known }
        let due: DueList
        if let (known, list) = cache.due[channel.household], known == day {
            due = list
        } else {
            due = try await dueList(for: channel.household, care: care, now: now)
            cache.due[channel.household] = (day, due)
        }
        var assignments = CareAssignments.none
        if channel.member != nil {
            if let known = cache.assignments[channel.household] {
                assignments = known
            } else {
                assignments = try await store.careAssignments(household: channel.household)
                cache.assignments[channel.household] = assignments
            }
        }
        let made = ReminderDigest(
            household: channel.household, day: day, due: due, publicURL: publicURL, member: Self.member(of: channel),
            assignments: assignments
        )
        cache.digests[audience] = made
        return made
    }

    private func dueList(for household: Int64, care: CareSettings, now: Date) async throws(StoreError) -> DueList {
        let planner = CarePlanner(store: store, hemisphere: care.hemisphere, timeZone: care.timeZone, now: { now })
        do {
            return try await HouseholdScope.$current.withValue(HouseholdScope(household: household)) {
                try await planner.due(withinDays: 0)
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw .database(operation: "read the due care", reason: "\(error)")
        }
    }

    private struct SendFailure: Error {
        var reason: String
        /// The target is gone (404, 410) or may not be sent to: no retry, the channel is turned off.
        var permanent: Bool
    }

    private func send(_ channel: ReminderChannel, digest: ReminderDigest, now: Date) async -> Result<Void, SendFailure> {
        if channel.kind != .email {
            switch await targets.check(channel.target) {
            case .allowed: break
            case .refused(let reason):
                return .failure(SendFailure(reason: "the target may not be used: \(reason)", permanent: true))
            case .unresolved(let reason):
                return .failure(SendFailure(reason: "the target cannot be reached now: \(reason)", permanent: false))
            }
        }
        let status: Int
        do {
            let attempt = try delivery(for: channel, digest: digest, now: now)
            let deadline = sendDeadline
            status = try await withThrowingTaskGroup(of: Int?.self) { group in
                group.addTask { try await attempt() }
                group.addTask {
                    try await Task.sleep(for: deadline)
                    return nil
                }
                defer { group.cancelAll() }
                if let first = try await group.next(), let status = first { return status }
                // The deadline woke first, or seemed to: after a stall of the whole process (every thread busy) both
                // may be done, and the answer that did arrive counts, since sending again would repeat the digest.
                group.cancelAll()
                while true {
                    do {
                        guard let next = try await group.next() else { break }
                        if let status = next { return status }
                    } catch {
                        continue
                    }
                }
                throw SendDeadlinePassed()
            }
        } catch let error as WebPushError {
            return .failure(SendFailure(reason: error.description, permanent: false))
        } catch let error as SMTPError {
            return .failure(SendFailure(reason: "email: \(error.description)", permanent: false))
        } catch is SendDeadlinePassed {
            return .failure(SendFailure(reason: "no answer within \(sendDeadline)", permanent: false))
        } catch {
            // Only the failure's class: a library's description could include the URL, and an ntfy topic is a secret.
            return .failure(SendFailure(reason: "network error: \(HTTPFailure(error))", permanent: false))
        }
        switch status {
        case 200..<300: return .success(())
        case 404, 410: return .failure(SendFailure(reason: "the target answered \(status) (it is gone)", permanent: true))
        case 401 where channel.kind == .webpush, 403 where channel.kind == .webpush:
            // A push service refusing the server's signature (Apple's asks for a real contact: PLANTGUIDE_VAPID_SUBJECT)
            // is the server's to mend, not the subscription gone: tried again, turned off only after days.
            return .failure(SendFailure(
                reason: "the push service refused the server's signature (\(status)); set \(Self.vapidSubjectVariable) to a mailto: or https contact",
                permanent: false
            ))
        case 401, 403: return .failure(SendFailure(reason: "the target refused the access token (\(status))", permanent: true))
        default: return .failure(SendFailure(reason: "the target answered \(status)", permanent: false))
        }
    }

    private struct SendDeadlinePassed: Error {}

    /// The send of one channel's message, answering an HTTP status (an email accepted by the SMTP server is 200).
    private func delivery(
        for channel: ReminderChannel, digest: ReminderDigest, now: Date
    ) throws -> @Sendable () async throws -> Int {
        guard channel.kind == .email else {
            let (headers, body) = try ReminderTransport.request(for: channel, digest: digest, webPush: webPush, now: now)
            let transport = transport, target = channel.target
            return { try await transport.post(target, headers, body) }
        }
        guard let email else {
            throw SMTPError("no SMTP server is set up (PLANTGUIDE_SMTP_HOST and PLANTGUIDE_SMTP_FROM)")
        }
        let settings = try email.get()
        let message = EmailMessage(
            digest: digest, to: String(channel.target.dropFirst("mailto:".count)), from: settings.from, publicURL: publicURL,
            actionKey: (try? webPush.get().keys.actionKey).map(SymmetricKeyBox.init), now: now
        )
        return {
            try await SMTPClient.send(message, settings: settings)
            return 200
        }
    }
}
