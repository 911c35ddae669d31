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

    /// Creates the capability.
    public init(
        channels: @escaping @Sendable () async throws -> [ReminderChannel],
        add: @escaping @Sendable (_ kind: ReminderChannelKind, _ target: String, _ token: String?, _ minuteOfDay: Int) async throws
            -> ReminderChannel,
        remove: @escaping @Sendable (_ id: Int64) async throws -> Bool,
        test: @escaping @Sendable (_ id: Int64) async throws -> String?,
        webPushKey: String? = nil
    ) {
        self.webPushKey = webPushKey
        self.channels = channels
        self.add = add
        self.remove = remove
        self.test = test
    }

    /// The live capability over a runner's store, for the household of the request's scope.
    public static func live(_ runner: ReminderRunner) -> ReminderCapability {
        let store = runner.store
        let household: @Sendable () -> Int64 = { HouseholdScope.current?.household ?? HouseholdScope.home.household }
        return ReminderCapability(
            channels: { try await store.reminderChannels(household: household()) },
            add: { kind, target, token, minute in
                let targets = runner.targets
                if let problem = await targets.check(target).problem {
                    throw ServerError.badRequest("That address cannot be used: \(problem).")
                }
                do {
                    return try await store.addReminderChannel(
                        NewReminderChannel(kind: kind, target: target, token: token, minuteOfDay: minute),
                        household: household(), now: Date()
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
                return await runner.test(channel, now: Date())
            },
            webPushKey: try? runner.webPush.get().keys.publicKey
        )
    }
}
