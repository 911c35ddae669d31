import Foundation

/// A unit temperatures are shown in. PlantGuide keeps and sends temperatures in degrees Celsius whatever is chosen.
public enum TemperatureUnit: String, Sendable, Hashable, Codable, CaseIterable {
    /// Degrees Celsius.
    case celsius
    /// Degrees Fahrenheit.
    case fahrenheit

    /// The unit's symbol, `°C` or `°F`.
    public var symbol: String {
        switch self {
        case .celsius: "°C"
        case .fahrenheit: "°F"
        }
    }

    /// A whole number of degrees Celsius in this unit, rounded to the nearest degree (F = C × 9/5 + 32).
    public func degrees(celsius: Int) -> Int {
        switch self {
        case .celsius: celsius
        case .fahrenheit: Int((Double(celsius) * 9 / 5 + 32).rounded())
        }
    }

    /// A range of degrees Celsius in this unit, e.g. `16–29 °C` or `61–84 °F`.
    public func range(celsius low: Int, _ high: Int) -> String {
        "\(degrees(celsius: low))–\(degrees(celsius: high)) \(symbol)"
    }

    /// The unit usual where a language tag's or POSIX locale's region is: °F in the United States and its territories
    /// (`en-US`, `es_US.UTF-8`, `en-PR`), else °C.
    public static func usual(forTag tag: String) -> TemperatureUnit {
        // A POSIX locale's codeset and modifier (`es_US.UTF-8@euro`) are no part of its region.
        let locale = tag.split(whereSeparator: { $0 == "." || $0 == "@" }).first.map(String.init) ?? ""
        let parts = locale.replacingOccurrences(of: "_", with: "-").split(separator: "-").dropFirst()
        let region = parts.first { $0.count == 2 }?.uppercased()
        return ["US", "PR", "GU", "VI", "AS", "MP", "UM"].contains(region ?? "") ? .fahrenheit : .celsius
    }

    /// A text PlantGuide wrote in °C (such as ``CareProfile/summary``, kept with an identification) with each range
    /// "16–29 °C" in this unit.
    public func convertingRanges(in text: String) -> String {
        guard self != .celsius else { return text }
        let range = /(-?\d+)–(-?\d+) °C/
        return text.replacing(range) { match in
            guard let low = Int(match.output.1), let high = Int(match.output.2) else { return String(match.output.0) }
            return self.range(celsius: low, high)
        }
    }
}
