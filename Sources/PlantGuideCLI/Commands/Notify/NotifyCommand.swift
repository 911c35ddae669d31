import ArgumentParser
import Foundation
import PlantGuideCore
import PlantReminders
import PlantStore
import PlantStoreSQLite

struct NotifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notify",
        abstract: "Care reminders: a daily digest of what is due, sent to ntfy, a webhook or a browser at your hour.",
        discussion: """
            Each channel gets one digest a day at its time of day (default 08:00) in the household's time zone \
            (`plantguide household set --time-zone`): the tasks due that day or overdue, room by room. Nothing is sent \
            on a day with nothing due. `plantguide serve` sends them; `notify run` sends what is due right now, exactly \
            as the server would, so a cron job can do it instead.

            Email goes through your SMTP server: set PLANTGUIDE_SMTP_HOST, PLANTGUIDE_SMTP_FROM and, as it needs, \
            PLANTGUIDE_SMTP_PORT, PLANTGUIDE_SMTP_SECURITY (starttls, tls or none), PLANTGUIDE_SMTP_USER and \
            PLANTGUIDE_SMTP_PASSWORD (never printed). Each task in the email has a link that marks it done when \
            PLANTGUIDE_PUBLIC_URL is set.

            Web Push reaches a browser (the installed web app: Settings, "Send reminders to this browser", does it for \
            you). Set PLANTGUIDE_VAPID_SUBJECT to a mailto: or https address where push services can reach you \
            (default: PLANTGUIDE_PUBLIC_URL).

            Targets must be https URLs on public addresses; set PLANTGUIDE_ALLOW_LOCAL_TARGETS=1 for an ntfy server on \
            your home network (http, private addresses). Set PLANTGUIDE_PUBLIC_URL (e.g. https://plants.example.org) to \
            put a link to the Care page in each digest.

            A channel added with --member is that member's: it lists their tasks (plants assigned to them with             `plantguide care assign`, or their turn) and everyone's, at their hour, never in their quiet hours; `notify             schedule` changes the hour and quiet hours of all their channels at once.

            Examples:
              plantguide notify add ntfy https://ntfy.sh/my-plants-7f3a --at 07:30
              NTFY_TOKEN=tk_… plantguide notify add ntfy https://ntfy.example.org/plants --token-env NTFY_TOKEN
              plantguide notify add webhook https://ha.example.org/api/webhook/plants
              plantguide notify add webpush --subscription subscription.json
              plantguide notify add email you@example.org --at 07:00
              plantguide notify add email alice@example.org --member alice --quiet 22:00-07:00
              plantguide notify schedule alice --at 07:30
              plantguide notify vapid-key             The key a browser subscribes with.
              plantguide notify test 1                Send a test message now.
              plantguide notify run --dry-run         What would be sent now.
              plantguide notify channels
              plantguide notify remove 1
            """,
        subcommands: [
            NotifyChannelsCommand.self, NotifyAddCommand.self, NotifyRemoveCommand.self, NotifyTestCommand.self,
            NotifyRunCommand.self, NotifyVAPIDKeyCommand.self, NotifyScheduleCommand.self,
        ]
    )
}

extension ReminderChannelKind: ExpressibleByArgument {
    public static var allValueStrings: [String] { allCases.map(\.rawValue) }
}

extension QuietHours: ExpressibleByArgument {
    public init?(argument: String) { self.init(parsing: argument) }
}

/// A local time of day as people type it: `8`, `08:00`, `7:30`.
struct TimeOfDay: ExpressibleByArgument, Sendable {
    var minuteOfDay: Int

    init?(argument: String) {
        guard let minute = ReminderRules.minuteOfDay(parsing: argument) else { return nil }
        minuteOfDay = minute
    }
}

extension NotifyCommand {
    /// The household the command acts for.
    static var household: Int64 { HouseholdScope.current?.household ?? HouseholdScope.home.household }

    /// The runner over the command's store, with the environment's defaults.
    static func runner(_ environment: CollectionEnvironment) throws -> ReminderRunner {
        let runner: ReminderRunner
        do {
            runner = try ReminderRunner.live(
                store: environment.store, careDefaults: environment.careDefaults,
                environment: ProcessInfo.processInfo.environment, directory: environment.directory
            )
        } catch {
            throw ValidationError(error.description + ".")
        }
        if case .failure(let error)? = runner.email {
            throw ValidationError("The SMTP settings are wrong: \(error.description).")
        }
        return runner
    }

    /// The member of the command's household with this account name.
    static func member(named name: String, store: any PlantGuideStore) async throws -> UserAccount {
        guard let user = try await store.user(named: name), user.householdId == household else {
            throw ValidationError("No member of this household is called '\(name)' (see `plantguide user list`).")
        }
        return user
    }

    static func line(_ channel: ReminderChannel, console: Console) -> String {
        var text = console.style("#\(channel.id)", .bold) + "  " + channel.kind.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)
            + channel.shownTarget + "  at " + channel.timeOfDay
        if let quiet = channel.quietHours { text += console.style("  quiet \(quiet)", .dim) }
        text += "  " + (channel.memberName.map { "for \($0)" } ?? "for everyone")
        if channel.token != nil, channel.kind != .webpush { text += console.style("  token set", .dim) }
        if !channel.enabled { text += console.style("  off", .yellow) }
        if let note = channel.note { text += "\n     " + console.style(note, channel.enabled ? .dim : .yellow) }
        return text
    }
}

struct NotifyChannelsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "channels", abstract: "List the household's reminder channels (targets shown shortened)."
    )

    @OptionGroup var output: OutputOptions

    func run(in context: CommandContext) async throws {
        let environment = try CollectionEnvironment.load(context)
        let channels = try await environment.store.reminderChannels(household: NotifyCommand.household)
        let console = Console()
        if output.json {
            try console.printJSON(channels)
            return
        }
        guard !channels.isEmpty else {
            console.print("No reminder channels yet. Add one: plantguide notify add ntfy https://ntfy.sh/<your-topic>")
            return
        }
        for channel in channels { console.print(NotifyCommand.line(channel, console: console)) }
    }
}

struct NotifyAddCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add a channel: ntfy (text to a topic URL), webhook (the digest as JSON), webpush (a browser) or email.",
        discussion: """
            An ntfy topic URL is as good as a password for anyone who knows it: choose a long, random topic, or protect \
            it with an access token (--token-env names the environment variable holding it, so it never appears in \
            your shell's history).

            webpush takes a browser's push subscription as JSON (what PushSubscription.toJSON() gives: endpoint, \
            keys.p256dh, keys.auth) from --subscription FILE, or - for standard input. The browser must have \
            subscribed with this server's key (plantguide notify vapid-key).
            """
    )

    @Argument(help: "ntfy, webhook, webpush or email.")
    var kind: ReminderChannelKind

    @Argument(help: "The URL to POST to, e.g. https://ntfy.sh/my-plants-7f3a; for email the address (not for webpush).")
    var url: String?

    @Option(help: ArgumentHelp("A browser's push subscription JSON (webpush only; - reads standard input).", valueName: "file"))
    var subscription: String?

    @Option(name: .customLong("at"), help: "The local time of day to send the digest (HH:MM, default 08:00).")
    var time: TimeOfDay?

    @Option(help: "The environment variable holding an access token, sent as `Authorization: Bearer …`.")
    var tokenEnv: String?

    @Option(help: "The member (account name) it is for: their tasks and everyone's; without it, every task.")
    var member: String?

    @Option(help: ArgumentHelp("Hours to send nothing in, e.g. 22:00-07:00 (a late send waits for their end).", valueName: "from-until"))
    var quiet: QuietHours?

    @OptionGroup var output: OutputOptions

    func validate() throws {
        switch kind {
        case .webpush:
            guard subscription != nil else {
                throw ValidationError("A webpush channel needs --subscription FILE (a browser's push subscription JSON).")
            }
            guard url == nil, tokenEnv == nil else {
                throw ValidationError("A webpush channel takes its address and keys from --subscription only.")
            }
        case .email:
            guard let url, ReminderRules.isEmailAddress(url.hasPrefix("mailto:") ? String(url.dropFirst(7)) : url) else {
                throw ValidationError("Give the address to email reminders to, e.g. you@example.org.")
            }
            guard subscription == nil, tokenEnv == nil else { throw ValidationError("An email channel takes only its address.") }
        case .ntfy, .webhook:
            guard url != nil else { throw ValidationError("Give the URL to send \(kind.rawValue) reminders to.") }
            guard subscription == nil else { throw ValidationError("--subscription is for webpush channels only.") }
        }
    }

    func run(in context: CommandContext) async throws {
        var target = url ?? ""
        var token: String?
        if let tokenEnv {
            guard let value = ProcessInfo.processInfo.environment[tokenEnv], !value.isEmpty else {
                throw ValidationError("The environment variable \(tokenEnv) is not set (it should hold the access token).")
            }
            token = value
        }
        if let subscription {
            let data: Data
            if subscription == "-" {
                data = FileHandle.standardInput.readDataToEndOfFile()
            } else {
                guard let read = FileManager.default.contents(atPath: subscription) else {
                    throw ValidationError("Cannot read the subscription file \(subscription).")
                }
                data = read
            }
            guard data.count <= 16_384 else { throw ValidationError("A push subscription is a few hundred bytes, not \(data.count).") }
            do {
                let parsed = try WebPushSubscription(json: data)
                target = parsed.endpoint
                token = parsed.token
            } catch {
                throw ValidationError("That subscription cannot be used: \(error).")
            }
        }
        let console = Console()
        if kind == .email {
            target = target.hasPrefix("mailto:") ? target : "mailto:" + target
            do {
                if try SMTPSettings.from(environment: ProcessInfo.processInfo.environment) == nil {
                    console.warn("Note: no SMTP server is set up here (PLANTGUIDE_SMTP_HOST); the server that sends reminders needs one.")
                }
            } catch {
                throw ValidationError("The SMTP settings are wrong: \(error.description).")
            }
        } else {
            let targets = ReminderTargets(environment: ProcessInfo.processInfo.environment)
            if let problem = await targets.check(target).problem {
                throw ValidationError("That target cannot be used: \(problem).")
            }
        }
        let environment = try CollectionEnvironment.load(context)
        var minute = time?.minuteOfDay ?? ReminderRules.standardMinuteOfDay
        var quietHours = quiet
        var memberId: Int64?
        if let member {
            let user = try await NotifyCommand.member(named: member, store: environment.store)
            memberId = user.id
            // A member's channels share their hour and quiet hours: a new one takes those of the others unless given.
            let channels = try await environment.store.reminderChannels(household: NotifyCommand.household)
            if let shared = ReminderRules.schedule(of: user.id, in: channels) {
                minute = time?.minuteOfDay ?? shared.minuteOfDay
                quietHours = quiet ?? shared.quietHours
            }
        }
        let channel = try await environment.store.addReminderChannel(
            NewReminderChannel(
                kind: kind, target: target, token: token, minuteOfDay: minute, member: memberId, quietHours: quietHours
            ),
            household: NotifyCommand.household, now: environment.now()
        )
        if let memberId, time != nil || quiet != nil {
            try await environment.store.setReminderSchedule(
                member: memberId, household: NotifyCommand.household, minuteOfDay: minute, quietHours: quietHours
            )
        }
        if output.json {
            try console.printJSON(channel)
            return
        }
        console.print("Added " + NotifyCommand.line(channel, console: console))
        console.print("Check it reaches you: plantguide notify test \(channel.id)")
    }
}

struct NotifyScheduleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schedule",
        abstract: "Set a member's reminder hour and quiet hours, on every channel of theirs.",
        discussion: """
            Examples:
              plantguide notify schedule alice --at 07:30
              plantguide notify schedule alice --quiet 22:00-07:00
              plantguide notify schedule alice --no-quiet
            """
    )

    @Argument(help: "The member's account name.")
    var member: String

    @Option(name: .customLong("at"), help: "The local time of day their digest is sent (HH:MM).")
    var time: TimeOfDay?

    @Option(help: ArgumentHelp("Hours to send nothing in, e.g. 22:00-07:00.", valueName: "from-until"))
    var quiet: QuietHours?

    @Flag(help: "No quiet hours.")
    var noQuiet = false

    @OptionGroup var output: OutputOptions

    func validate() throws {
        guard time != nil || quiet != nil || noQuiet else { throw ValidationError("Give --at, --quiet or --no-quiet.") }
        guard !(quiet != nil && noQuiet) else { throw ValidationError("Give --quiet or --no-quiet, not both.") }
    }

    func run(in context: CommandContext) async throws {
        let environment = try CollectionEnvironment.load(context)
        let user = try await NotifyCommand.member(named: member, store: environment.store)
        let channels = try await environment.store.reminderChannels(household: NotifyCommand.household)
            .filter { $0.member == user.id }
        guard let first = channels.first else {
            throw ValidationError("\(user.name) has no reminder channels yet: add one with `plantguide notify add … --member \(user.name)`.")
        }
        let minute = time?.minuteOfDay ?? first.minuteOfDay
        let quietHours = noQuiet ? nil : (quiet ?? first.quietHours)
        let changed = try await environment.store.setReminderSchedule(
            member: user.id, household: NotifyCommand.household, minuteOfDay: minute, quietHours: quietHours
        )
        let console = Console()
        if output.json {
            try console.printJSON(ScheduleJSON(
                member: user.name, timeOfDay: ReminderRules.timeOfDay(minute), quietHours: quietHours, channels: changed
            ))
            return
        }
        let quietText = quietHours.map { ", quiet \($0)" } ?? ", no quiet hours"
        console.print("\(user.name)'s reminders come at \(ReminderRules.timeOfDay(minute))\(quietText) (\(counted(changed, "channel"))).")
    }

    private struct ScheduleJSON: Encodable {
        var member: String
        var timeOfDay: String
        var quietHours: QuietHours?
        var channels: Int
    }
}

struct NotifyVAPIDKeyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vapid-key",
        abstract: "Print this server's Web Push public key (base64url), the applicationServerKey browsers subscribe with.",
        discussion: "The key pair is made on first use and kept in the data directory (vapid-key.pem, mode 0600)."
    )

    @OptionGroup var output: OutputOptions

    func run() async throws {
        let directory = DataDirectory.resolve()
        let keys: VAPIDKeys
        do {
            keys = try VAPIDKeys.loadOrCreate(in: directory)
        } catch {
            throw ValidationError("The Web Push key cannot be read or made: \(error).")
        }
        let console = Console()
        if output.json {
            try console.printJSON(["publicKey": keys.publicKey])
        } else {
            console.print(keys.publicKey)
        }
    }
}

struct NotifyRemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove a reminder channel.")

    @Argument(help: "The channel's id (see `notify channels`).")
    var id: Int64

    func run(in context: CommandContext) async throws {
        let environment = try CollectionEnvironment.load(context)
        guard try await environment.store.removeReminderChannel(id: id, household: NotifyCommand.household) else {
            throw ValidationError("There is no reminder channel #\(id) (see `plantguide notify channels`).")
        }
        Console().print("Removed reminder channel #\(id).")
    }
}

struct NotifyTestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test", abstract: "Send a test message to a channel now (no digest is recorded)."
    )

    @Argument(help: "The channel's id (see `notify channels`).")
    var id: Int64

    func run(in context: CommandContext) async throws {
        let environment = try CollectionEnvironment.load(context)
        let channels = try await environment.store.reminderChannels(household: NotifyCommand.household)
        guard let channel = channels.first(where: { $0.id == id }) else {
            throw ValidationError("There is no reminder channel #\(id) (see `plantguide notify channels`).")
        }
        let runner = try NotifyCommand.runner(environment)
        if let problem = await runner.test(channel, now: environment.now()) {
            throw NotifyError(description: "The test message was not delivered: \(problem).")
        }
        Console().print("Sent a test message to #\(id) (\(channel.shownTarget)).")
    }
}

struct NotifyRunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Send every digest due now, as the server's scheduler does (each channel's once a day).",
        discussion: """
            A digest goes out when its channel's time of day has come in the household's time zone and today's was \
            not sent yet; after days without a run, one digest catches up. A failed send is tried again later (after \
            1, 10 and 60 minutes); a target that answers 404 or 410 is turned off, as is one that failed 3 days running.
            """
    )

    @Option(help: "Run as at this instant (ISO 8601, e.g. 2026-06-01T08:00:00Z) instead of now.")
    var now: String?

    @Flag(help: "Say what would be sent; send and record nothing.")
    var dryRun = false

    @OptionGroup var output: OutputOptions

    func run(in context: CommandContext) async throws {
        var instant: Date?
        if let now {
            guard let parsed = ISO8601DateFormatter().date(from: now) else {
                throw ValidationError("--now must be an ISO 8601 instant like 2026-06-01T08:00:00Z, not '\(now)'.")
            }
            instant = parsed
        }
        let environment = try CollectionEnvironment.load(context)
        let results = try await NotifyCommand.runner(environment).run(now: instant ?? environment.now(), dryRun: dryRun)
        let console = Console()
        if output.json {
            try console.printJSON(results)
        } else if results.isEmpty {
            console.print("No reminder channels are on. Add one: plantguide notify add ntfy https://ntfy.sh/<your-topic>")
        } else {
            for result in results {
                let what = switch result.state {
                case .sent: "sent (\(counted(result.tasks, "task")))"
                case .wouldSend: "would send \(counted(result.tasks, "task"))"
                case .nothingDue: "nothing due today, nothing sent"
                case .notYet: "not yet: due at \(result.sendAt.formatted(.iso8601))"
                case .quiet: "quiet hours: waits until \(result.sendAt.formatted(.iso8601))"
                case .handled: "done for \(result.day)"
                case .failed: console.style("failed: \(result.error ?? "unknown error")", .yellow)
                }
                console.print("#\(result.channel)  \(result.kind.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0))\(result.day)  \(what)")
            }
        }
        if results.contains(where: { $0.state == .failed }) { throw ExitCode(1) }
    }
}

/// A reminder that could not be sent, as the command line says it.
struct NotifyError: Error, CustomStringConvertible {
    var description: String
}

extension NotifyChannelsCommand: UsesCollectionDatabase {}
extension NotifyAddCommand: UsesCollectionDatabase {}
extension NotifyRemoveCommand: UsesCollectionDatabase {}
extension NotifyTestCommand: UsesCollectionDatabase {}
extension NotifyScheduleCommand: UsesCollectionDatabase {}
extension NotifyRunCommand: UsesCollectionDatabase, ServesEveryHousehold {
    static let installationWidePart = "every household's reminders"
}
