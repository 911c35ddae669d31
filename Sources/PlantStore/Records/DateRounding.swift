import Foundation

extension Date {
    /// This instant rounded to whole milliseconds, the precision the database keeps; rounding on the
    /// way in makes export and import round trips exact.
    package var roundedToMilliseconds: Date {
        Date(timeIntervalSince1970: (timeIntervalSince1970 * 1000).rounded() / 1000)
    }
}
