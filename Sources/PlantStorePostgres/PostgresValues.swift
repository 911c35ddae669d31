import Foundation
import PlantGuideCore
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
    private static let postgresEpoch = 10_957

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
