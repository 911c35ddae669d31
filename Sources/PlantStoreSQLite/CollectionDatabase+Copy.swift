import Foundation
import GRDB
import PlantGuideCore
import PlantStore

/// Reading the whole collection as typed rows, for `plantguide migrate` (the PostgreSQL side is
/// `PostgresStore+Copy.swift`).
extension CollectionDatabase: CollectionRowSource {
    /// Every row of `tables` in key order, read in one transaction (one consistent state even while the collection is
    /// in use), each value checked against its column's kind.
    ///
    /// - Throws: ``StoreError/invalid(_:)`` naming the table, column and row when a value is not of its column's kind
    ///   (say, a timestamp that is not `YYYY-MM-DD HH:MM:SS.SSS`), so nothing is copied inexactly.
    package func rowsForCopy(_ tables: [CollectionCopy.Table] = CollectionCopy.tables) throws(StoreError) -> [CollectionCopy.TableRows] {
        try read("read the collection to copy it") { db in
            try tables.map { table in
                let columns = table.columns.map { "\"\($0.name)\"" }.joined(separator: ", ")
                let order = table.key.map { "\"\($0)\"" }.joined(separator: ", ")
                var rows: [[CollectionCopy.Value]] = []
                let cursor = try Row.fetchCursor(db, sql: "SELECT \(columns) FROM \"\(table.name)\" ORDER BY \(order)")
                while let row = try cursor.next() {
                    var values: [CollectionCopy.Value] = []
                    values.reserveCapacity(table.columns.count)
                    for (index, column) in table.columns.enumerated() {
                        values.append(try Self.copyValue(row[index], column: column, table: table.name, rowNumber: rows.count + 1))
                    }
                    rows.append(values)
                }
                var lastId: Int64 = 0
                if table.hasIdentity {
                    let maximum = try Int64.fetchOne(db, sql: "SELECT max(id) FROM \"\(table.name)\"") ?? 0
                    let remembered = try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = ?", arguments: [table.name]) ?? 0
                    lastId = max(maximum, remembered)
                }
                return CollectionCopy.TableRows(table: table, rows: rows, lastId: lastId)
            }
        }
    }

    private static func copyValue(
        _ value: DatabaseValue, column: CollectionCopy.Column, table: String, rowNumber: Int
    ) throws -> CollectionCopy.Value {
        switch (column.kind, value.storage) {
        case (_, .null): return .null
        case (.integer, .int64(let number)): return .integer(number)
        case (.real, .double(let number)): return .real(number)
        case (.real, .int64(let number)): return .real(Double(number))
        case (.text, .string(let text)): return .text(text)
        case (.boolean, .int64(let number)) where number == 0 || number == 1: return .boolean(number == 1)
        case (.instant, .string(let text)):
            if let date = DatabaseTimestamp.parse(text) { return .instant(milliseconds: CollectionCopy.milliseconds(date)) }
        case (.day, .string(let text)):
            if let day = CalendarDay(text) { return .day(day) }
        case (.blob, .blob(let data)): return .blob(data)
        default: break
        }
        throw StoreError.invalid(
            "\(table).\(column.name) of row \(rowNumber) holds \(value), which is not a valid \(column.kind) value; it cannot be copied exactly."
        )
    }
}
