import Foundation

/// The numbers every store keeps to, so a collection behaves the same on SQLite and on PostgreSQL.
public enum StorePolicy {
    /// The household a new database starts with (id 1): the command line's default, and the one whose owners may change
    /// what every household shares.
    public static let defaultHouseholdId: Int64 = 1
    /// A log-in's `lastSeenAt` is written at most this often (seconds), so checking a session is a read.
    public static let lastSeenResolution: TimeInterval = 60
    /// How long the photos of an identification not saved to a plant are kept while it waits for a re-check.
    public static let unsavedRecheckLifetime: TimeInterval = 30 * 24 * 3600
    /// After this many failed attempts an item leaves the queue as ``RecheckState/failed``.
    public static let recheckAttemptLimit = 5
    /// Below this confidence a re-check or re-scoring that disagrees with the plant's species is not worth the owner's
    /// attention, and no suggestion is made (the answer is still kept in the history).
    public static let suggestionMinimumConfidence = 0.1
}
