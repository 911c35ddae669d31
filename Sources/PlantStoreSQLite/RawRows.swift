import GRDB
import GRDBSQLite
import PlantStore

/// The rows of one query read straight from SQLite's statement, for the few reads of thousands of rows where GRDB's
/// per-row `Row` (a cursor object, a conversion per column) costs more than the query itself.
struct RawRows {
    /// One row while it is current; valid only inside the closure it is passed to.
    struct Current {
        fileprivate let handle: OpaquePointer

        /// The integer in column `index` (0 for NULL).
        func int64(_ index: Int32) -> Int64 { sqlite3_column_int64(handle, index) }

        /// The integer in column `index`, or `nil` for NULL.
        func optionalInt(_ index: Int32) -> Int? {
            sqlite3_column_type(handle, index) == SQLITE_NULL ? nil : Int(sqlite3_column_int64(handle, index))
        }

        /// The text in column `index`, or `nil` for NULL (invalid UTF-8 is repaired, as GRDB does).
        func text(_ index: Int32) -> String? {
            guard let bytes = sqlite3_column_text(handle, index) else { return nil }
            let count = Int(sqlite3_column_bytes(handle, index))
            return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
        }
    }

    /// Runs `sql` with `arguments` and calls `body` with each row in turn.
    static func forEach(
        _ db: Database, sql: String, arguments: StatementArguments, _ body: (Current) throws -> Void
    ) throws {
        let statement = try db.makeStatement(sql: sql)
        try statement.setArguments(arguments)
        let handle = statement.sqliteStatement
        defer { sqlite3_reset(handle) }
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { return }
            guard code == SQLITE_ROW else {
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)), sql: sql)
            }
            try body(Current(handle: handle))
        }
    }
}
