import Foundation

/// A household setting the web app keeps in the store: how identification behaves, chosen in Settings.
public enum HouseholdSettingKey: String, Sendable, CaseIterable {
    /// The strategy the Identify form preselects (an `IdentifyStrategy` raw value).
    case identifyStrategy = "identify.strategy"
    /// The confidence below which the device asks Pl@ntNet and answers are "not sure" (a decimal number).
    case identifyThreshold = "identify.threshold"
    /// Which half of the world the household's plants live in (`north` or `south`), for its care schedules.
    case careHemisphere = "care.hemisphere"
    /// The household's time zone (an IANA name such as `Europe/Paris`): it decides which day "today" is.
    case careTimeZone = "care.timeZone"
}

/// One photo of a recent upload, as the store names it: the file is `uploads/<sha256>` in the data directory.
public struct RecentUploadPhoto: Codable, Sendable, Hashable {
    /// The SHA-256 of the photo's bytes, 64 lowercase hexadecimal digits.
    public var sha256: String
    /// The image format (an `ImageFormat` raw value).
    public var kind: String
    /// What the photo shows (a `PlantNetOrgan` raw value the web app offers).
    public var organ: String

    /// Creates a photo reference.
    public init(sha256: String, kind: String, organ: String) {
        self.sha256 = sha256
        self.kind = kind
        self.organ = organ
    }
}

/// A recent identification, kept so the results page and "This is my plant" work on any replica: which photos were
/// sent, the outcome as JSON, whose session made it, and when it is forgotten.
public struct RecentUploadRow: Sendable, Hashable {
    /// A random id of 16 to 64 characters (the results page's address).
    public var id: String
    /// The household whose member identified.
    public var householdId: Int64
    /// The SHA-256 (hex) of the session id that made it: only that session reads it.
    public var sessionHash: String
    /// The photos, in the order sent.
    public var photos: [RecentUploadPhoto]
    /// The outcome, as JSON (the server's `IdentifyOutcome`).
    public var outcome: String
    /// The identification filed in the re-check queue for this answer, if it was queued.
    public var recheckIdentificationId: Int64?
    public var createdAt: Date
    /// After this it is gone (and its photo files, unless another upload names them).
    public var expiresAt: Date

    /// Creates a row.
    public init(
        id: String, householdId: Int64, sessionHash: String, photos: [RecentUploadPhoto], outcome: String,
        recheckIdentificationId: Int64? = nil, createdAt: Date, expiresAt: Date
    ) {
        self.id = id
        self.householdId = householdId
        self.sessionHash = sessionHash
        self.photos = photos
        self.outcome = outcome
        self.recheckIdentificationId = recheckIdentificationId
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}

/// What every server replica must see besides accounts and the Pl@ntNet state: the anti-forgery secret, a household's
/// settings and calendar token, and recent uploads. `CollectionDatabase` and the PostgreSQL store conform.
///
/// ``serverSecret(named:make:now:)`` is atomic across replicas: two starting at once get the same secret.
public protocol ServerStateStore: Sendable {
    /// The secret with this name (only `session`, 32 bytes), made with `make` and kept when there is none yet. When two
    /// callers race, the first insert wins and both return its bytes.
    func serverSecret(named name: String, make: @Sendable () -> Data, now: Date) async throws(StoreError) -> Data

    /// A household's settings by key (only keys that were set).
    func householdSettings(household: Int64) async throws(StoreError) -> [HouseholdSettingKey: String]
    /// Sets one of a household's settings; `nil` removes it (back to the default).
    func setHouseholdSetting(_ key: HouseholdSettingKey, to value: String?, household: Int64, now: Date) async throws(StoreError)

    /// The token of a household's calendar address, when the feed is on.
    func calendarToken(household: Int64) async throws(StoreError) -> String?
    /// Sets (64 lowercase hexadecimal digits) or removes (`nil`) a household's calendar token.
    func setCalendarToken(_ token: String?, household: Int64) async throws(StoreError)
    /// The household whose calendar token this is, if any.
    func household(calendarToken token: String) async throws(StoreError) -> Int64?

    /// Keeps a recent upload, then forgets the same session's oldest beyond `keepPerSession`. Returns the SHA-256s of
    /// photos that only the forgotten uploads named (their files may go).
    @discardableResult
    func saveUpload(_ upload: RecentUploadRow, keepPerSession: Int) async throws(StoreError) -> [String]
    /// The upload with this id, for this session and household, while it has not expired.
    func upload(id: String, sessionHash: String, household: Int64, now: Date) async throws(StoreError) -> RecentUploadRow?
    /// Forgets every upload expired at `now`. Returns the SHA-256s of photos no remaining upload names (their files
    /// may go), each once, sorted; a concurrent purge never returns the same ones.
    func purgeUploads(now: Date) async throws(StoreError) -> [String]
}
