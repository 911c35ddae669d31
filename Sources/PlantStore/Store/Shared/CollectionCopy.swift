import Foundation
import PlantGuideCore

/// What `plantguide migrate` copies from an SQLite collection to PostgreSQL: every table of the schema (SQLite v15,
/// PostgreSQL pg6), with the columns each backend has under the same names, and the kind of value each holds. Each
/// backend reads and writes these rows with SQL of its own (`CollectionDatabase+Copy.swift`,
/// `PostgresStore+Copy.swift`); this is only the shared description and the typed values.
///
/// Values are kept exactly: ids and integers as `Int64`, reals as their `Double` bits, texts (JSON included) byte for
/// byte, instants as whole milliseconds (what both stores keep), days as ``PlantGuideCore/CalendarDay``, blobs as bytes.
package enum CollectionCopy {
    /// The tables of the SQLite schema that are not copied: v16's change stamps and v17's log of changed plants, which each
    /// store keeps for itself (stamps from a counter row on SQLite, a sequence on PostgreSQL) and writes anew.
    package static let uncopiedTables = ["changeStamp", "changeStampCounter", "plantChange"]

    /// The kind of value a column holds, which decides how each backend reads and binds it.
    package enum Kind: Sendable, Hashable {
        /// SQLite `INTEGER`; PostgreSQL `bigint` or `integer`.
        case integer
        /// SQLite `REAL`; PostgreSQL `double precision`.
        case real
        /// Text, JSON included.
        case text
        /// SQLite 0/1; PostgreSQL `boolean`.
        case boolean
        /// SQLite `DATETIME` text (`YYYY-MM-DD HH:MM:SS.SSS`, UTC); PostgreSQL `timestamptz`.
        case instant
        /// SQLite `YYYY-MM-DD` text; PostgreSQL `date`.
        case day
        /// SQLite `BLOB`; PostgreSQL `bytea`.
        case blob
    }

    /// One column: its name (the same on both backends) and kind.
    package struct Column: Sendable, Hashable {
        package let name: String
        package let kind: Kind

        package init(_ name: String, _ kind: Kind) {
            self.name = name
            self.kind = kind
        }
    }

    /// One table.
    package struct Table: Sendable, Hashable {
        /// Its name, as both schemas spell it.
        package let name: String
        /// Every column, in the order rows list their values.
        package let columns: [Column]
        /// The columns of its primary key (or of a full sort when it has none): rows are read in this order (texts in
        /// byte order on both backends), so two reads of the same rows compare equal.
        package let key: [String]
        /// Whether `id` is an identity column whose sequence must be moved past the copied ids.
        package let hasIdentity: Bool
        /// Whether the target keeps this table itself (a trigger writes it): it is compared, never copied.
        package let isDerived: Bool

        init(_ name: String, key: [String], identity: Bool = false, derived: Bool = false, _ columns: [Column]) {
            self.name = name
            self.columns = columns
            self.key = key
            self.hasIdentity = identity
            self.isDerived = derived
        }

        /// The kind of the named column.
        package func kind(of column: String) -> Kind? { columns.first { $0.name == column }?.kind }
    }

    /// One value of a row.
    package enum Value: Sendable, Hashable {
        case null
        case integer(Int64)
        case real(Double)
        case text(String)
        case boolean(Bool)
        /// Milliseconds since 1970-01-01 00:00 UTC.
        case instant(milliseconds: Int64)
        case day(CalendarDay)
        case blob(Data)
    }

    /// The rows of one table, in its key's order, and the least id the target's sequence must go past (SQLite's
    /// `sqlite_sequence` remembers ids of deleted rows, which are never given again; 0 without identity).
    package struct TableRows: Sendable, Hashable {
        package let table: Table
        package let rows: [[Value]]
        package let lastId: Int64

        package init(table: Table, rows: [[Value]], lastId: Int64) {
            self.table = table
            self.rows = rows
            self.lastId = lastId
        }
    }

    /// Every table, parents before the tables that refer to them (the order to insert in; the reverse to delete).
    package static let tables: [Table] = [
        Table("household", key: ["id"], identity: true, [
            Column("id", .integer), Column("name", .text), Column("calendarToken", .text), Column("createdAt", .instant),
        ]),
        Table("appUser", key: ["id"], identity: true, [
            Column("id", .integer), Column("householdId", .integer), Column("name", .text), Column("role", .text),
            Column("passwordHash", .text), Column("createdAt", .instant), Column("passwordChangedAt", .instant),
            Column("language", .text), Column("temperatureUnit", .text), Column("lastLanguage", .text),
        ]),
        Table("loginSession", key: ["idHash"], [
            Column("idHash", .text), Column("userId", .integer), Column("createdAt", .instant), Column("expiresAt", .instant),
            Column("lastSeenAt", .instant),
        ]),
        Table("loginFailure", key: ["scope", "subject", "failedAt"], [
            Column("scope", .text), Column("subject", .text), Column("failedAt", .instant),
        ]),
        Table("plant", key: ["id"], identity: true, [
            Column("id", .integer), Column("uuid", .text), Column("name", .text), Column("species", .text),
            Column("nickname", .text), Column("room", .text), Column("acquiredOn", .day), Column("notes", .text),
            Column("createdAt", .instant), Column("updatedAt", .instant), Column("confirmedSpecies", .text),
            Column("confirmedBy", .text), Column("confirmedAt", .instant), Column("householdId", .integer),
        ]),
        Table("photo", key: ["sha256"], [
            Column("sha256", .text), Column("originalSHA256", .text), Column("mediaType", .text), Column("byteCount", .integer),
            Column("width", .integer), Column("height", .integer), Column("thumbnailSHA256", .text), Column("createdAt", .instant),
        ]),
        Table("plantPhoto", key: ["plantId", "photoSHA256"], [
            Column("plantId", .integer), Column("photoSHA256", .text), Column("addedAt", .instant), Column("isCover", .boolean),
        ]),
        Table("identification", key: ["id"], identity: true, [
            Column("id", .integer), Column("uuid", .text), Column("plantId", .integer), Column("photoSHA256", .text),
            Column("source", .text), Column("model", .text), Column("predictions", .text), Column("uncertain", .boolean),
            Column("chosenSpecies", .text), Column("identifiedAt", .instant), Column("recheckOf", .integer),
            Column("timings", .text), Column("householdId", .integer), Column("recordedBy", .text),
        ]),
        Table("careProfile", key: ["plantId"], [
            Column("plantId", .integer), Column("light", .text), Column("waterGrowingDays", .integer),
            Column("waterWinterDays", .integer), Column("fertilizeGrowingDays", .integer), Column("mistDays", .integer),
            Column("repotDays", .integer), Column("pruneDays", .integer), Column("humidity", .text),
            Column("minTemperature", .integer), Column("maxTemperature", .integer), Column("toxicToCats", .boolean),
            Column("toxicToDogs", .boolean), Column("toxicitySource", .text), Column("basis", .text),
        ]),
        Table("careEvent", key: ["id"], identity: true, [
            Column("id", .integer), Column("uuid", .text), Column("plantId", .integer), Column("task", .text),
            Column("day", .day), Column("note", .text), Column("createdAt", .instant), Column("recordedBy", .text),
            Column("soil", .text),
        ]),
        Table("careSchedule", key: ["plantId", "task"], [
            Column("plantId", .integer), Column("task", .text), Column("growingDays", .integer), Column("restDays", .integer),
            Column("paused", .boolean), Column("snoozedUntil", .day), Column("learnedGrowing", .real),
            Column("learnedRest", .real), Column("learnedSince", .day), Column("conditions", .text),
        ]),
        Table("careLastDone", key: ["plantId", "task"], derived: true, [
            Column("plantId", .integer), Column("task", .text), Column("day", .day),
        ]),
        Table("learnedSpecies", key: ["speciesKey", "language"], [
            Column("speciesKey", .text), Column("language", .text), Column("binomial", .text), Column("commonNames", .text),
            Column("family", .text), Column("gbifId", .text), Column("powoId", .text), Column("learnedAt", .instant),
        ]),
        Table("recheck", key: ["id"], identity: true, [
            Column("id", .integer), Column("identificationId", .integer), Column("reason", .text), Column("state", .text),
            Column("queuedAt", .instant), Column("expiresAt", .instant), Column("attempts", .integer),
            Column("claimedUntil", .instant), Column("claimedBy", .text), Column("lastError", .text),
            Column("resultId", .integer), Column("finishedAt", .instant),
        ]),
        Table("recheckPhoto", key: ["recheckId", "position"], [
            Column("recheckId", .integer), Column("position", .integer), Column("photoSHA256", .text), Column("organ", .text),
        ]),
        Table("speciesSuggestion", key: ["id"], identity: true, [
            Column("id", .integer), Column("plantId", .integer), Column("kind", .text), Column("identificationId", .integer),
            Column("previousIdentificationId", .integer), Column("currentSpecies", .text), Column("previousSpecies", .text),
            Column("previousConfidence", .real), Column("previousModel", .text), Column("suggestedSpecies", .text),
            Column("confidence", .real), Column("model", .text), Column("createdAt", .instant), Column("resolution", .text),
            Column("resolvedAt", .instant),
        ]),
        Table("identificationRun", key: ["id"], identity: true, [
            Column("id", .integer), Column("ranAt", .instant), Column("strategy", .text), Column("source", .text),
            Column("cacheHit", .boolean), Column("apiCalled", .boolean), Column("remainingRequests", .integer),
            Column("timings", .text), Column("householdId", .integer),
        ]),
        Table("photoEmbedding", key: ["photoSHA256"], [
            Column("photoSHA256", .text), Column("model", .text), Column("modelChecksum", .text), Column("dimension", .integer),
            Column("vector", .blob), Column("createdAt", .instant),
        ]),
        Table("plantnetQuota", key: ["day"], [
            Column("day", .day), Column("available", .integer), Column("spent", .integer), Column("lastReported", .integer),
            Column("blockedUntil", .instant), Column("updatedAt", .instant),
        ]),
        Table("plantnetCacheEntry", key: ["exactKey"], [
            Column("exactKey", .text), Column("project", .text), Column("language", .text), Column("organs", .text),
            Column("perceptualHashes", .text), Column("answer", .text), Column("storedAt", .instant),
            Column("lastUsedAt", .instant), Column("hits", .integer),
        ]),
        Table("plantnetCacheCounter", key: ["name"], [Column("name", .text), Column("value", .integer)]),
        Table("serverSecret", key: ["name"], [Column("name", .text), Column("value", .blob), Column("createdAt", .instant)]),
        Table("householdSetting", key: ["householdId", "key"], [
            Column("householdId", .integer), Column("key", .text), Column("value", .text), Column("updatedAt", .instant),
        ]),
        Table("recentUpload", key: ["id"], [
            Column("id", .text), Column("householdId", .integer), Column("sessionHash", .text), Column("photos", .text),
            Column("outcome", .text), Column("recheckIdentificationId", .integer), Column("createdAt", .instant),
            Column("expiresAt", .instant),
        ]),
        Table("reminderChannel", key: ["id"], identity: true, [
            Column("id", .integer), Column("householdId", .integer), Column("kind", .text), Column("target", .text),
            Column("token", .text), Column("minuteOfDay", .integer), Column("enabled", .boolean), Column("note", .text),
            Column("createdAt", .instant), Column("memberId", .integer), Column("quietFrom", .integer),
            Column("quietUntil", .integer),
        ]),
        Table("reminderDigest", key: ["channelId", "day"], [
            Column("channelId", .integer), Column("day", .day), Column("attempts", .integer), Column("claimedAt", .instant),
            Column("sentAt", .instant), Column("tasks", .integer), Column("lastError", .text), Column("retryAt", .instant),
        ]),
        Table("careAssignment", key: ["plantId"], [
            Column("plantId", .integer), Column("memberId", .integer), Column("turns", .boolean),
        ]),
        Table("healthRecord", key: ["id"], identity: true, [
            Column("id", .integer), Column("uuid", .text), Column("plantId", .integer), Column("diagnosis", .text),
            Column("note", .text), Column("recordedBy", .text), Column("recordedAt", .instant), Column("language", .text),
            Column("attempts", .integer), Column("lastError", .text), Column("gaveUpAt", .instant),
            Column("claimedUntil", .instant), Column("claimedBy", .text),
        ]),
        Table("healthRecordPhoto", key: ["recordId", "position"], [
            Column("recordId", .integer), Column("position", .integer), Column("photoSHA256", .text), Column("organ", .text),
        ]),
    ]

    /// A timestamp as whole milliseconds, as both stores keep it.
    package static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded())
    }
}

/// How many rows one table holds in the source and in the target after a copy, and whether they are the same rows.
public struct CopiedTableCheck: Sendable, Hashable, Codable {
    /// The table's name.
    public var table: String
    /// Rows in the source.
    public var sourceRows: Int
    /// Rows in the target.
    public var targetRows: Int
    /// Whether every row of the target equals the source's, value for value, in key order.
    public var rowsEqual: Bool

    /// Describes one table's check.
    public init(table: String, sourceRows: Int, targetRows: Int, rowsEqual: Bool) {
        self.table = table
        self.sourceRows = sourceRows
        self.targetRows = targetRows
        self.rowsEqual = rowsEqual
    }
}

/// The verification of a copy: every table compared, and the two stores' exports.
public struct CopyVerification: Sendable, Hashable, Codable {
    /// Every table, in the order copied.
    public var tables: [CopiedTableCheck]
    /// Whether the two stores' ``CollectionExport``s are equal.
    public var exportsEqual: Bool

    /// Describes a verification.
    public init(tables: [CopiedTableCheck], exportsEqual: Bool) {
        self.tables = tables
        self.exportsEqual = exportsEqual
    }

    /// Whether the target holds exactly the source's rows and exports the same collection.
    public var isExact: Bool { exportsEqual && tables.allSatisfy { $0.rowsEqual && $0.sourceRows == $0.targetRows } }

    /// The tables that differ.
    public var differingTables: [CopiedTableCheck] { tables.filter { !$0.rowsEqual || $0.sourceRows != $0.targetRows } }
}

/// A collection that can be read whole as typed rows: what `plantguide migrate` copies from (the SQLite store), so the
/// PostgreSQL side needs no SQLite library to read it.
package protocol CollectionRowSource: CollectionStore {
    /// Every row of `tables` in key order, read in one transaction, each value checked against its column's kind; for
    /// a table with ids, the largest id ever given.
    func rowsForCopy(_ tables: [CollectionCopy.Table]) throws(StoreError) -> [CollectionCopy.TableRows]
}
