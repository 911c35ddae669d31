import Foundation
import PlantGuideCore
import PlantStore
import PostgresNIO

/// A `timestamptz` bound and read as whole milliseconds, the precision every store keeps.
///
/// postgres-nio's own `Date` coding goes through microseconds counted from 2000 as a `Double`, so a value read back can
/// differ from the one written (and from what the SQLite store returns) in the last bit. This type writes exactly the
/// millisecond and reads `Date(timeIntervalSince1970: milliseconds / 1000)`, the same `Date` as
/// `Date.roundedToMilliseconds` and SQLite's reads give, so records compare equal across backends.
struct PostgresInstant: PostgresNonThrowingEncodable, PostgresDecodable, Sendable, Hashable {
    /// Milliseconds since 1970-01-01 00:00 UTC.
    let milliseconds: Int64

    /// `date`, rounded to the millisecond.
    init(_ date: Date) {
        milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    /// The instant `milliseconds` after 1970-01-01 00:00 UTC.
    init(milliseconds: Int64) {
        self.milliseconds = milliseconds
    }

    /// The instant as the stores return it.
    var date: Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }

    /// Milliseconds from 1970 to 2000-01-01, PostgreSQL's epoch.
    private static let postgresEpoch: Int64 = 946_684_800_000

    static var psqlType: PostgresDataType { .timestamptz }
    static var psqlFormat: PostgresFormat { .binary }

    func encode<JSONEncoder: PostgresJSONEncoder>(into byteBuffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        byteBuffer.writeInteger((milliseconds - Self.postgresEpoch) * 1000)
    }

    init<JSONDecoder: PostgresJSONDecoder>(
        from buffer: inout ByteBuffer, type: PostgresDataType, format: PostgresFormat, context: PostgresDecodingContext<JSONDecoder>
    ) throws {
        guard type == .timestamptz || type == .timestamp, format == .binary, buffer.readableBytes == 8,
              let microseconds = buffer.readInteger(as: Int64.self) else {
            throw PostgresDecodingError.Code.typeMismatch
        }
        self.init(microsecondsSince2000: microseconds)
    }

    /// The instant of a binary `timestamptz` (microseconds since 2000-01-01 00:00 UTC), rounded to the millisecond.
    init(microsecondsSince2000 microseconds: Int64) {
        // Rounded half up to the millisecond (floor division, so times before 2000 round the same way).
        let shifted = microseconds + 500
        let quotient = shifted / 1000, remainder = shifted % 1000
        milliseconds = (remainder < 0 ? quotient - 1 : quotient) + Self.postgresEpoch
    }
}

/// A `date` bound and read as a ``PlantGuideCore/CalendarDay``.
struct PostgresDay: PostgresNonThrowingEncodable, PostgresDecodable, Sendable, Hashable {
    let day: CalendarDay

    init(_ day: CalendarDay) { self.day = day }

    /// Days from 1970-01-01 to 2000-01-01, PostgreSQL's epoch.
    static let postgresEpoch = 10_957

    static var psqlType: PostgresDataType { .date }
    static var psqlFormat: PostgresFormat { .binary }

    func encode<JSONEncoder: PostgresJSONEncoder>(into byteBuffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        byteBuffer.writeInteger(Int32(day.dayNumber - Self.postgresEpoch))
    }

    init<JSONDecoder: PostgresJSONDecoder>(
        from buffer: inout ByteBuffer, type: PostgresDataType, format: PostgresFormat, context: PostgresDecodingContext<JSONDecoder>
    ) throws {
        guard type == .date, format == .binary, buffer.readableBytes == 4, let days = buffer.readInteger(as: Int32.self) else {
            throw PostgresDecodingError.Code.typeMismatch
        }
        day = CalendarDay(dayNumber: Int(days) + Self.postgresEpoch)
    }
}

extension Optional where Wrapped == CalendarDay {
    /// The day to bind, `nil` binding NULL.
    var bound: PostgresDay? { map(PostgresDay.init) }
}

/// Reads a row's columns in order, decoding each binary value by hand into the type the caller names.
///
/// postgres-nio's `decode((A, B, …).self)` looks up generic and tuple type metadata for every column of every row, which
/// cost more than everything else in reading 10,000 plants; these reads are plain code over the cell's bytes. A NULL
/// where a value must be, or a column of another type than the one read, is ``PlantStore/StoreError/invalid(_:)``.
struct PostgresColumns {
    private var cells: PostgresRow.Iterator

    init(_ row: PostgresRow) {
        cells = row.makeIterator()
    }

    /// The next column's bytes (`nil` for NULL) and its type.
    private mutating func next() throws(StoreError) -> (bytes: ByteBuffer?, cell: PostgresCell) {
        guard let cell = cells.next() else { throw StoreError.invalid("a row has fewer columns than the store reads") }
        guard cell.format == .binary else { throw StoreError.invalid("column \(cell.columnName) is not in binary format") }
        return (cell.bytes, cell)
    }

    /// The next column through `decode`, `nil` for NULL.
    private mutating func optional<Value>(
        _ decode: (inout ByteBuffer, PostgresCell) throws(StoreError) -> Value
    ) throws(StoreError) -> Value? {
        let (bytes, cell) = try next()
        guard var bytes else { return nil }
        return try decode(&bytes, cell)
    }

    /// The next column through `decode`; NULL is an error.
    private mutating func required<Value>(
        _ decode: (inout ByteBuffer, PostgresCell) throws(StoreError) -> Value
    ) throws(StoreError) -> Value {
        let (bytes, cell) = try next()
        guard var bytes else { throw StoreError.invalid("column \(cell.columnName) is NULL where the store needs a value") }
        return try decode(&bytes, cell)
    }

    private static func mismatch(_ cell: PostgresCell, _ expected: String) -> StoreError {
        .invalid("column \(cell.columnName) holds \(cell.dataType), not \(expected) as the store reads it")
    }

    /// An `int2`, `int4` or `int8` value.
    private static func integer(_ bytes: inout ByteBuffer, _ cell: PostgresCell) throws(StoreError) -> Int64 {
        switch (cell.dataType, bytes.readableBytes) {
        case (.int8, 8): if let value = bytes.readInteger(as: Int64.self) { return value }
        case (.int4, 4): if let value = bytes.readInteger(as: Int32.self) { return Int64(value) }
        case (.int2, 2): if let value = bytes.readInteger(as: Int16.self) { return Int64(value) }
        default: break
        }
        throw mismatch(cell, "an integer")
    }

    /// A `text`, `varchar` or `name` value.
    private static func text(_ bytes: inout ByteBuffer, _ cell: PostgresCell) throws(StoreError) -> String {
        guard cell.dataType == .text || cell.dataType == .varchar || cell.dataType == .name else {
            throw mismatch(cell, "text")
        }
        return String(buffer: bytes)
    }

    /// A `date` value.
    private static func date(_ bytes: inout ByteBuffer, _ cell: PostgresCell) throws(StoreError) -> CalendarDay {
        guard cell.dataType == .date, bytes.readableBytes == 4, let days = bytes.readInteger(as: Int32.self) else {
            throw mismatch(cell, "a date")
        }
        return CalendarDay(dayNumber: Int(days) + PostgresDay.postgresEpoch)
    }

    /// An integer column, `nil` for NULL.
    mutating func optionalInt64() throws(StoreError) -> Int64? { try optional(Self.integer) }

    /// An integer column that is never NULL.
    mutating func int64() throws(StoreError) -> Int64 { try required(Self.integer) }

    /// An integer column as `Int`, `nil` for NULL.
    mutating func optionalInt() throws(StoreError) -> Int? { try optionalInt64().map { Int($0) } }

    /// A text column, `nil` for NULL.
    mutating func optionalString() throws(StoreError) -> String? { try optional(Self.text) }

    /// A text column that is never NULL.
    mutating func string() throws(StoreError) -> String { try required(Self.text) }

    /// A `date` column, `nil` for NULL.
    mutating func optionalDay() throws(StoreError) -> CalendarDay? { try optional(Self.date) }

    /// A `date` column that is never NULL.
    mutating func day() throws(StoreError) -> CalendarDay { try required(Self.date) }

    /// A `boolean` column that is never NULL.
    mutating func bool() throws(StoreError) -> Bool {
        try required { (bytes, cell) throws(StoreError) in
            guard cell.dataType == .bool, bytes.readableBytes == 1, let byte = bytes.readInteger(as: UInt8.self) else {
                throw Self.mismatch(cell, "a boolean")
            }
            return byte != 0
        }
    }

    /// A `timestamptz` column that is never NULL, as ``PostgresInstant`` reads it.
    mutating func instant() throws(StoreError) -> Date {
        try required { (bytes, cell) throws(StoreError) in
            guard cell.dataType == .timestamptz || cell.dataType == .timestamp, bytes.readableBytes == 8,
                  let microseconds = bytes.readInteger(as: Int64.self) else {
                throw Self.mismatch(cell, "a timestamp")
            }
            return PostgresInstant(microsecondsSince2000: microseconds).date
        }
    }
}
