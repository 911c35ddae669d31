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
///
/// A column may also be a one-dimensional array, as `array_agg` makes (the `…Array` reads): a query that aggregates each
/// column of many records into one row costs one message instead of one per record, and postgres-nio's own array
/// decoding refuses arrays that hold NULL.
struct PostgresColumns {
    private var cells: PostgresRow.Iterator

    init(_ row: PostgresRow) {
        cells = row.makeIterator()
    }

    /// What a decoder checks a value against: its column's name (for errors) and the type of the value.
    private struct Column {
        let name: String
        let type: PostgresDataType
    }

    /// The next column's bytes (`nil` for NULL) and its type.
    private mutating func next() throws(StoreError) -> (bytes: ByteBuffer?, column: Column) {
        guard let cell = cells.next() else { throw StoreError.invalid("a row has fewer columns than the store reads") }
        guard cell.format == .binary else { throw StoreError.invalid("column \(cell.columnName) is not in binary format") }
        return (cell.bytes, Column(name: cell.columnName, type: cell.dataType))
    }

    /// The next column through `decode`, `nil` for NULL.
    private mutating func optional<Value>(
        _ decode: (inout ByteBuffer, Column) throws(StoreError) -> Value
    ) throws(StoreError) -> Value? {
        let (bytes, column) = try next()
        guard var bytes else { return nil }
        return try decode(&bytes, column)
    }

    /// The next column through `decode`; NULL is an error.
    private mutating func required<Value>(
        _ decode: (inout ByteBuffer, Column) throws(StoreError) -> Value
    ) throws(StoreError) -> Value {
        let (bytes, column) = try next()
        guard var bytes else { throw Self.null(column) }
        return try decode(&bytes, column)
    }

    /// Passes each element of the next column, a one-dimensional array, to `body` (`nil` for a NULL element) with the
    /// element type, after `reserve` is told how many there are. A NULL array, as `array_agg` gives for no records, has
    /// no elements.
    private mutating func forEachElement(
        reserve: (Int) -> Void, _ body: (inout ByteBuffer?, Column) throws(StoreError) -> Void
    ) throws(StoreError) {
        let (bytes, column) = try next()
        guard var bytes else { return }
        let unreadable = StoreError.invalid("column \(column.name) is not a readable one-dimensional array")
        // The binary array: dimensions (0 when empty), a has-NULL flag, the element type; per dimension its length and
        // lower bound; then each element as its length (-1 for NULL) and bytes.
        guard let (dimensions, _, elementType) = bytes.readMultipleIntegers(as: (Int32, Int32, UInt32).self),
              dimensions == 0 || dimensions == 1 else { throw unreadable }
        guard dimensions == 1 else { return }
        guard let (count, _) = bytes.readMultipleIntegers(as: (Int32, Int32).self), count >= 0 else { throw unreadable }
        let element = Column(name: column.name, type: PostgresDataType(elementType))
        reserve(Int(count))
        for _ in 0..<count {
            guard let length = bytes.readInteger(as: Int32.self) else { throw unreadable }
            var value: ByteBuffer? = nil
            if length >= 0 {
                guard let slice = bytes.readSlice(length: Int(length)) else { throw unreadable }
                value = slice
            }
            try body(&value, element)
        }
    }

    /// The elements of the next array column through `decode`, `nil` for each NULL element.
    private mutating func elements<Value>(
        _ decode: (inout ByteBuffer, Column) throws(StoreError) -> Value
    ) throws(StoreError) -> [Value?] {
        var values: [Value?] = []
        try forEachElement(reserve: { values.reserveCapacity($0) }) { (bytes, column) throws(StoreError) in
            if var element = bytes { values.append(try decode(&element, column)) } else { values.append(nil) }
        }
        return values
    }

    /// The elements of the next array column through `decode`; a NULL element is an error.
    private mutating func requiredElements<Value>(
        _ decode: (inout ByteBuffer, Column) throws(StoreError) -> Value
    ) throws(StoreError) -> [Value] {
        var values: [Value] = []
        try forEachElement(reserve: { values.reserveCapacity($0) }) { (bytes, column) throws(StoreError) in
            guard var element = bytes else { throw Self.null(column) }
            values.append(try decode(&element, column))
        }
        return values
    }

    private static func null(_ column: Column) -> StoreError {
        .invalid("column \(column.name) is NULL where the store needs a value")
    }

    private static func mismatch(_ column: Column, _ expected: String) -> StoreError {
        .invalid("column \(column.name) holds \(column.type), not \(expected) as the store reads it")
    }

    /// An `int2`, `int4` or `int8` value.
    private static func integer(_ bytes: inout ByteBuffer, _ column: Column) throws(StoreError) -> Int64 {
        switch (column.type, bytes.readableBytes) {
        case (.int8, 8): if let value = bytes.readInteger(as: Int64.self) { return value }
        case (.int4, 4): if let value = bytes.readInteger(as: Int32.self) { return Int64(value) }
        case (.int2, 2): if let value = bytes.readInteger(as: Int16.self) { return Int64(value) }
        default: break
        }
        throw mismatch(column, "an integer")
    }

    /// A `text`, `varchar` or `name` value.
    private static func text(_ bytes: inout ByteBuffer, _ column: Column) throws(StoreError) -> String {
        guard column.type == .text || column.type == .varchar || column.type == .name else {
            throw mismatch(column, "text")
        }
        return String(buffer: bytes)
    }

    /// A `date` value.
    private static func date(_ bytes: inout ByteBuffer, _ column: Column) throws(StoreError) -> CalendarDay {
        guard column.type == .date, bytes.readableBytes == 4, let days = bytes.readInteger(as: Int32.self) else {
            throw mismatch(column, "a date")
        }
        return CalendarDay(dayNumber: Int(days) + PostgresDay.postgresEpoch)
    }

    /// A `boolean` value.
    private static func boolean(_ bytes: inout ByteBuffer, _ column: Column) throws(StoreError) -> Bool {
        guard column.type == .bool, bytes.readableBytes == 1, let byte = bytes.readInteger(as: UInt8.self) else {
            throw mismatch(column, "a boolean")
        }
        return byte != 0
    }

    /// A `timestamptz` value, as ``PostgresInstant`` reads it.
    private static func instant(_ bytes: inout ByteBuffer, _ column: Column) throws(StoreError) -> Date {
        guard column.type == .timestamptz || column.type == .timestamp, bytes.readableBytes == 8,
              let microseconds = bytes.readInteger(as: Int64.self) else {
            throw mismatch(column, "a timestamp")
        }
        return PostgresInstant(microsecondsSince2000: microseconds).date
    }

    /// A `timestamptz` column, `nil` for NULL.
    mutating func optionalInstant() throws(StoreError) -> Date? { try optional(Self.instant) }

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
    mutating func bool() throws(StoreError) -> Bool { try required(Self.boolean) }

    /// A `timestamptz` column that is never NULL, as ``PostgresInstant`` reads it.
    mutating func instant() throws(StoreError) -> Date { try required(Self.instant) }

    /// An array column of integers without NULL.
    mutating func int64Array() throws(StoreError) -> [Int64] { try requiredElements(Self.integer) }

    /// An array column of integers as `Int`, `nil` for each NULL.
    mutating func optionalIntArray() throws(StoreError) -> [Int?] {
        try elements { (bytes, column) throws(StoreError) in Int(try Self.integer(&bytes, column)) }
    }

    /// An array column of text without NULL.
    mutating func stringArray() throws(StoreError) -> [String] { try requiredElements(Self.text) }

    /// An array column of text, `nil` for each NULL.
    mutating func optionalStringArray() throws(StoreError) -> [String?] { try elements(Self.text) }

    /// An array column of dates, `nil` for each NULL.
    mutating func optionalDayArray() throws(StoreError) -> [CalendarDay?] { try elements(Self.date) }

    /// An array column of booleans without NULL.
    mutating func boolArray() throws(StoreError) -> [Bool] { try requiredElements(Self.boolean) }

    /// An array column of `timestamptz` without NULL.
    mutating func instantArray() throws(StoreError) -> [Date] { try requiredElements(Self.instant) }
}
