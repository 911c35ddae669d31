import Foundation
import PlantGuideCore
import PlantLocalization
import PlantStore

/// A member's choice of language or temperature unit as a person types it (`plantguide user set`, the Settings form):
/// `auto` for automatic, else a value PlantGuide knows.
public enum PreferenceChoice {
    /// Why a choice was refused, in a sentence that says what to type instead.
    public struct Refusal: Error, CustomStringConvertible, Sendable {
        /// What to tell the person.
        public let description: String
    }

    /// The language code a choice names (`fr`), or `nil` for `auto`.
    /// - Throws: ``Refusal`` for a language PlantGuide is not written in.
    public static func language(_ choice: String) throws(Refusal) -> String? {
        let typed = choice.trimmingCharacters(in: .whitespaces)
        if typed.isEmpty || typed.lowercased() == "auto" { return nil }
        guard let language = InterfaceLanguage(tag: typed), language.tag == typed.lowercased() else {
            throw Refusal(
                description: "PlantGuide is not written in '\(typed.prefix(20))': choose auto, "
                    + InterfaceLanguage.written.map(\.tag).joined(separator: ", ") + "."
            )
        }
        return language.tag
    }

    /// The temperature unit a choice names, or `nil` for `auto`.
    /// - Throws: ``Refusal`` for anything but `celsius`, `fahrenheit` or `auto`.
    public static func temperatureUnit(_ choice: String) throws(Refusal) -> TemperatureUnit? {
        let typed = choice.trimmingCharacters(in: .whitespaces).lowercased()
        if typed.isEmpty || typed == "auto" { return nil }
        guard let unit = TemperatureUnit(rawValue: typed) else {
            throw Refusal(description: "Temperatures are shown in celsius or fahrenheit (or auto), not '\(choice.prefix(20))'.")
        }
        return unit
    }

    /// `current` with the choices made: a choice left out (`nil`) keeps its value, `auto` makes it automatic.
    /// - Throws: ``Refusal`` for a language or unit PlantGuide does not know.
    public static func updating(
        _ current: MemberPreferences, language: String?, temperatureUnit: String?
    ) throws(Refusal) -> MemberPreferences {
        var preferences = current
        if let language { preferences.language = try Self.language(language) }
        if let temperatureUnit { preferences.temperatureUnit = try Self.temperatureUnit(temperatureUnit) }
        return preferences
    }

    /// How a member's preferences read in a sentence's end, e.g. "pages in Français, temperatures in °F".
    public static func summary(_ preferences: MemberPreferences) -> String {
        let language = preferences.language.flatMap { InterfaceLanguage(tag: $0) }
        let pages = language.map { "pages in \($0.endonym)" } ?? "pages in the browser's language"
        let degrees = preferences.temperatureUnit.map { "temperatures in \($0.symbol)" }
            ?? "temperatures in °F in the United States, else °C"
        return "\(pages), \(degrees)"
    }
}
