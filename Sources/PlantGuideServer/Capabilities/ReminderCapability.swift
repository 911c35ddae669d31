import Foundation
import PlantReminders
import PlantStore

/// The household's care reminder channels, for Settings.
public struct ReminderCapability: Sendable {
    /// The household's channels, oldest first.
    public var channels: @Sendable () async throws -> [ReminderChannel]
    /// Adds a channel (`ntfy` or `webhook`, a URL, an optional access token, a time of day in minutes).
    public var add: @Sendable (_ kind: ReminderChannelKind, _ target: String, _ token: String?, _ minuteOfDay: Int) async throws
        -> ReminderChannel
    /// Removes one of the household's channels; `false` when it has none with this id.
    public var remove: @Sendable (_ id: Int64) async throws -> Bool
    /// Sends a test message to one of the household's channels now; why it failed, `nil` when it went.
    public var test: @Sendable (_ id: Int64) async throws -> String?
    /// The server's Web Push public key (base64url) browsers subscribe with; `nil` when Web Push cannot work here.
    public var webPushKey: String?
    /// Whether email reminders can be sent (an SMTP server is set up).
    public var emailReady: Bool
    /// Applies a reminder's signed action token ("Done", "Tomorrow"); throws ``ReminderActionError`` for a bad one.
    public var act: (@Sendable (_ token: String) async throws -> ReminderActionOutcome)?

    /// Creates the capability.
    public init(
        channels: @escaping @Sendable () async throws -> [ReminderChannel],
        add: @escaping @Sendable (_ kind: ReminderChannelKind, _ target: String, _ token: String?, _ minuteOfDay: Int) async throws
            -> ReminderChannel,
        remove: @escaping @Sendable (_ id: Int64) async throws -> Bool,
        test: @escaping @Sendable (_ id: Int64) async throws -> String?,
        webPushKey: String? = nil,
        act: (@Sendable (_ token: String) async throws -> ReminderActionOutcome)? = nil,
        emailReady: Bool = false
    ) {
        self.emailReady = emailReady
        self.webPushKey = webPushKey
        self.act = act
        self.channels = channels
        self.add = add
        self.remove = remove
        self.test = test
    }

    /// The live capability over a runner's store, for the household of the request's scope.
    public static func live(_ runner: ReminderRunner, now: @escaping @Sendable () -> Date = { Date() }) -> ReminderCapability {
        let store = runner.store
        let household: @Sendable () -> Int64 = { HouseholdScope.current?.household ?? HouseholdScope.home.household }
        return ReminderCapability(
            channels: { try await store.reminderChannels(household: household()) },
            add: { kind, target, token, minute in
                let targets = runner.targets
                if kind != .email, let problem = await targets.check(target).problem {
                    throw ServerError.badRequest("That address cannot be used: \(problem).")
                }
                do {
                    return try await store.addReminderChannel(
                        NewReminderChannel(kind: kind, target: target, token: token, minuteOfDay: minute),
                        household: household(), now: now()
                    )
                } catch StoreError.invalid(let message) {
                    throw ServerError.badRequest(message)
                }
            },
            remove: { id in try await store.removeReminderChannel(id: id, household: household()) },
            test: { id in
                guard let channel = try await store.reminderChannels(household: household()).first(where: { $0.id == id }) else {
                    throw ServerError.notFound("That reminder channel")
                }
                return await runner.test(channel, now: now())
            },
            webPushKey: try? runner.webPush.get().keys.publicKey,
            act: { token in try await runner.perform(token, now: now()) },
            emailReady: (try? runner.email?.get()) != nil
        )
    }
}
