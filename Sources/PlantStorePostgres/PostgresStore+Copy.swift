import Foundation
import PlantGuideCore
import PlantStore
import PostgresNIO

/// A copy refused because the target database already holds a collection.
public struct TargetNotEmptyError: Error, Sendable, CustomStringConvertible {
    /// The target, without its password.
    public let location: String
    /// The tables that hold rows, with how many, in copy order.
    public let occupiedTables: [(table: String, rows: Int)]

    public var description: String {
        let listed = occupiedTables.prefix(6).map { "\($0.table): \($0.rows)" }.joined(separator: ", ")
        return "\(location) already holds a collection (\(listed)\(occupiedTables.count > 6 ? ", …" : "")); "
            + "nothing was copied."
    }
}

/// How far a copy has come.
public struct CopyProgress: Sendable, Hashable {
    /// The table being copied.
    public var table: String
    /// Rows copied so far, over every table.
    public var rowsCopied: Int
    /// Rows to copy in all.
    public var totalRows: Int
}

/// Copying an SQLite collection into PostgreSQL exactly, for `plantguide migrate`: the twin of
/// `CollectionDatabase+Copy.swift`.
extension PostgresStore {
    /// Copies every table of `database` (``CollectionCopy/tables``) into this database in one transaction, keeping every
    /// id and value, then moves each identity sequence past the largest id SQLite ever gave (deleted rows' ids
    /// included), so rows added later on PostgreSQL get fresh ids. `careLastDone` is not copied: the trigger on
    /// `careEvent` writes it, and ``verifyCopy(of:now:)`` compares it.
    ///
    /// The target must be empty: no row in any table but the household every new database starts with (id 1, `Home`,
    /// without a calendar token); a renamed or second household counts as a collection.
    /// With `replacing`, whatever it holds is deleted in the same transaction, so it holds either its old rows or the
    /// whole copy, never a mix. The tables are locked for the transaction, so no replica writes in between.
    ///
    /// - Returns: the number of rows copied.
    /// - Throws: ``TargetNotEmptyError`` for a non-empty target without `replacing`; ``StoreError/invalid(_:)`` when
    ///   an SQLite value is not of its column's kind; ``StoreError`` for the database's errors (nothing is copied).
    package func copyCollection(
        from database: any CollectionRowSource, replacing: Bool, progress: @escaping @Sendable (CopyProgress) -> Void = { _ in }
    ) async throws -> Int {
        let source = try database.rowsForCopy(CollectionCopy.tables)
        let copied = source.filter { !$0.table.isDerived }
        let total = copied.map(\.rows.count).reduce(0, +)
        let allTables = (CollectionCopy.tables.map(\.name) + Self.derivedTables).joined(separator: ", ")
        let occupied = try await inTransaction("copy the collection into PostgreSQL") { connection -> [(table: String, rows: Int)] in
            let logger = self.logger
            try await connection.query("SELECT pg_advisory_xact_lock(\(PostgresSchema.migrationLock))", logger: logger)
            try await connection.query("LOCK TABLE \(unescaped: allTables) IN ACCESS EXCLUSIVE MODE", logger: logger)
            var found: [(table: String, rows: Int)] = []
            for table in CollectionCopy.tables {
                // Every new database has household 1, `Home`, with no calendar token; the copy brings the source's.
                let counted = table.name == "household"
                    ? "SELECT count(*) FROM household WHERE NOT (id = 1 AND name = 'Home' AND calendarToken IS NULL)"
                    : "SELECT count(*) FROM \(table.name)"
                let rows = try await connection.query(PostgresQuery(unsafeSQL: counted), logger: logger)
                var count: Int64 = 0
                for try await value in rows.decode(Int64.self) { count = value }
                if count > 0 { found.append((table.name, Int(count))) }
            }
            if !found.isEmpty && !replacing { return found }
            try await connection.query("TRUNCATE \(unescaped: allTables)", logger: logger)
            // Every household gets a new change stamp once, at the end, instead of from the triggers at the commit.
            try await connection.query("SELECT set_config('plantguide.stamped', 'all', true)", logger: logger)
            var done = 0
            for tableRows in copied {
                let table = tableRows.table
                let columns = table.columns.map(\.name).joined(separator: ", ")
                // Well under PostgreSQL's 65,535 parameters a statement.
                let batch = max(1, min(1000, 30_000 / table.columns.count))
                var start = 0
                while start < tableRows.rows.count {
                    let slice = tableRows.rows[start..<min(start + batch, tableRows.rows.count)]
                    var sql = "INSERT INTO \(table.name) (\(columns)) VALUES "
                    var binds = PostgresBindings(capacity: slice.count * table.columns.count)
                    var parameter = 0
                    for (rowIndex, row) in slice.enumerated() {
                        sql += rowIndex == 0 ? "(" : ", ("
                        for (index, value) in row.enumerated() {
                            parameter += 1
                            sql += index == 0 ? "$\(parameter)" : ", $\(parameter)"
                            Self.bind(value, into: &binds)
                        }
                        sql += ")"
                    }
                    try await connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger)
                    start += slice.count
                    done += slice.count
                    progress(CopyProgress(table: table.name, rowsCopied: done, totalRows: total))
                }
                if table.hasIdentity {
                    let sequence = "pg_get_serial_sequence('\(table.name)', 'id')"
                    if tableRows.lastId > 0 {
                        try await connection.query("SELECT setval(\(unescaped: sequence), \(tableRows.lastId))", logger: logger)
                    } else {
                        try await connection.query("SELECT setval(\(unescaped: sequence), 1, false)", logger: logger)
                    }
                }
            }
            try await connection.query("""
                INSERT INTO changeStamp (householdId, stamp, since)
                    SELECT id, stamp, stamp FROM (SELECT id, nextval('changeStamp_sequence') AS stamp FROM household) AS stamped
                ON CONFLICT (householdId) DO UPDATE SET stamp = excluded.stamp, since = excluded.since
                """, logger: logger)
            return found
        }
        if !occupied.isEmpty && !replacing {
            throw TargetNotEmptyError(location: location.description, occupiedTables: occupied)
        }
        // Fresh statistics for the planner: until autovacuum comes round, tables filled at once are planned as if empty.
        try await execute("ANALYZE \(allTables)", operation: "analyze the copied collection")
        return total
    }

    /// Compares this database with `database` after a copy: every table's rows, value for value in key order
    /// (`careLastDone` included), and the two stores' exports at `now` of every household (an export holds one
    /// household's collection).
    package func verifyCopy(of database: any CollectionRowSource, now: Date) async throws -> CopyVerification {
        let source = try database.rowsForCopy(CollectionCopy.tables)
        let target = try await rowsForCopy()
        var checks: [CopiedTableCheck] = []
        for (mine, theirs) in zip(source, target) {
            checks.append(CopiedTableCheck(
                table: mine.table.name, sourceRows: mine.rows.count, targetRows: theirs.rows.count, rowsEqual: mine.rows == theirs.rows
            ))
        }
        let generator = "plantguide migrate"
        var exportsEqual = true
        // The copy's households (the table checks above compare them with the source's).
        for household in try await households() {
            let scope = HouseholdScope(household: household.id)
            let exported = try await HouseholdScope.$current.withValue(scope) {
                try await database.exportSnapshot(now: now, generator: generator)
            }
            let exportedHere = try await HouseholdScope.$current.withValue(scope) {
                try await exportSnapshot(now: now, generator: generator)
            }
            if exported != exportedHere { exportsEqual = false }
        }
        return CopyVerification(tables: checks, exportsEqual: exportsEqual)
    }

    /// Every row of `tables` in key order (texts in byte order, as SQLite's), read in one snapshot.
    package func rowsForCopy(_ tables: [CollectionCopy.Table] = CollectionCopy.tables) async throws(StoreError) -> [CollectionCopy.TableRows] {
        try await inSnapshot("read the collection to compare it") { connection in
            var result: [CollectionCopy.TableRows] = []
            for table in tables {
                let columns = table.columns.map(\.name).joined(separator: ", ")
                let order = table.key.map { table.kind(of: $0) == .text ? "\($0) COLLATE \"C\"" : $0 }.joined(separator: ", ")
                var rows: [[CollectionCopy.Value]] = []
                let query = try await connection.query(
                    "SELECT \(unescaped: columns) FROM \(unescaped: table.name) ORDER BY \(unescaped: order)", logger: self.logger
                )
                for try await row in query {
                    var values: [CollectionCopy.Value] = []
                    values.reserveCapacity(table.columns.count)
                    for (cell, column) in zip(row, table.columns) {
                        values.append(try Self.value(cell, kind: column.kind))
                    }
                    rows.append(values)
                }
                result.append(CollectionCopy.TableRows(table: table, rows: rows, lastId: 0))
            }
            return result
        }
    }

    /// The tables not copied but written by triggers from copied rows (pg7's `careLastDays`, from `careLastDone`) or by
    /// the copy itself (pg8's `changeStamp`, each store's own, and pg9's `plantChange`, left empty: every household's
    /// `since` is its new stamp): emptied, locked and analysed with the copied ones.
    static let derivedTables = ["careLastDays", "changeStamp", "plantChange"]

    /// Every table of the collection's schema (in the search path's first schema) but ``derivedTables``, with its
    /// columns, lower-cased as PostgreSQL keeps them; for the test that keeps ``CollectionCopy/tables`` complete.
    package func schemaColumns() async throws(StoreError) -> [String: Set<String>] {
        try await withConnection("read the schema's columns") { connection in
            let rows = try await connection.query(
                """
                SELECT c.table_name::text, c.column_name::text FROM information_schema.columns c
                JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
                WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE' AND c.table_name <> 'schema_migration'
                    AND c.table_name <> ALL (\(Self.derivedTables.map { $0.lowercased() }))
                """,
                logger: self.logger
            )
            var columns: [String: Set<String>] = [:]
            for try await (table, column) in rows.decode((String, String).self) { columns[table, default: []].insert(column) }
            return columns
        }
    }

    private static func bind(_ value: CollectionCopy.Value, into binds: inout PostgresBindings) {
        switch value {
        case .null: binds.appendNull()
        case .integer(let number): binds.append(number)
        case .real(let number): binds.append(number)
        case .text(let text): binds.append(text)
        case .boolean(let flag): binds.append(flag)
        case .instant(let milliseconds): binds.append(PostgresInstant(milliseconds: milliseconds))
        case .day(let day): binds.append(PostgresDay(day))
        case .blob(let data): binds.append(ByteBuffer(bytes: data))
        }
    }

    private static func value(_ cell: PostgresCell, kind: CollectionCopy.Kind) throws -> CollectionCopy.Value {
        switch kind {
        case .integer: return try cell.decode(Int64?.self).map { .integer($0) } ?? .null
        case .real: return try cell.decode(Double?.self).map { .real($0) } ?? .null
        case .text: return try cell.decode(String?.self).map { .text($0) } ?? .null
        case .boolean: return try cell.decode(Bool?.self).map { .boolean($0) } ?? .null
        case .instant: return try cell.decode(PostgresInstant?.self).map { .instant(milliseconds: $0.milliseconds) } ?? .null
        case .day: return try cell.decode(PostgresDay?.self).map { .day($0.day) } ?? .null
        case .blob: return try cell.decode(Data?.self).map { .blob($0) } ?? .null
        }
    }
}
