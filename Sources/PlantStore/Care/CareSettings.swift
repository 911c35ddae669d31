import Foundation
import PlantGuideCore

/// Where a household's plants live, for its care schedules: the hemisphere (which months are winter) and the time zone
/// (which day "today" is). Kept as household settings (`care.hemisphere`, `care.timeZone`); what a household has not
/// set comes from the installation's defaults (`PLANTGUIDE_HEMISPHERE`, the machine's time zone).
public struct CareSettings: Sendable, Hashable {
    /// Which months are winter.
    public var hemisphere: Hemisphere
    /// Which day "today" is.
    public var timeZone: TimeZone
    /// Whether the hemisphere was chosen for the household (not the installation's default).
    public var hemisphereIsSet: Bool
    /// Whether the time zone was chosen for the household.
    public var timeZoneIsSet: Bool

    /// Settings with nothing chosen for the household.
    public init(hemisphere: Hemisphere, timeZone: TimeZone) {
        self.hemisphere = hemisphere
        self.timeZone = timeZone
        hemisphereIsSet = false
        timeZoneIsSet = false
    }

    /// A household's settings over `defaults`; a stored value that is not valid (a damaged row) is ignored.
    public init(settings: [HouseholdSettingKey: String], defaults: CareSettings) {
        self = defaults
        if let hemisphere = settings[.careHemisphere].flatMap(Hemisphere.init(rawValue:)) {
            self.hemisphere = hemisphere
            hemisphereIsSet = true
        }
        if let name = settings[.careTimeZone], let zone = Self.timeZone(named: name) {
            timeZone = zone
            timeZoneIsSet = true
        }
    }

    /// The time zone with an IANA name (`Europe/Paris`, `UTC`), or `nil` when there is none by that name.
    public static func timeZone(named name: String) -> TimeZone? {
        let trimmed = name.trimmingCharacters(in: .whitespaces)
        // Names as the time zone database spells them (Europe/Paris, Etc/UTC, America/Argentina/Buenos_Aires).
        let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/_+-")
        guard !trimmed.isEmpty, trimmed.count <= 64, trimmed.unicodeScalars.allSatisfy(allowed.contains),
              !trimmed.hasPrefix("/"), !trimmed.contains("..")
        else { return nil }
        if trimmed == "UTC" || trimmed == "GMT" || TimeZone.knownTimeZoneIdentifiers.contains(trimmed) {
            return TimeZone(identifier: trimmed)
        }
        // Aliases the system knows but does not list (Etc/UTC): only when it has data for them.
        guard let zone = TimeZone(identifier: trimmed), zone.identifier == trimmed else { return nil }
        return zone
    }

    /// The household settings that choose `hemisphere` and `timeZone` (`nil` leaves a setting as it is, an empty name
    /// goes back to the default), checked.
    /// - Throws: ``StoreError/invalid(_:)`` for a hemisphere other than north or south, or an unknown time zone.
    public static func changes(hemisphere: String?, timeZone: String?) throws(StoreError) -> [(HouseholdSettingKey, String?)] {
        var changes: [(HouseholdSettingKey, String?)] = []
        if let hemisphere {
            let value = hemisphere.trimmingCharacters(in: .whitespaces).lowercased()
            if value.isEmpty || value == "default" {
                changes.append((.careHemisphere, nil))
            } else {
                guard Hemisphere(rawValue: value) != nil else { throw .invalid("The hemisphere is north or south, not '\(hemisphere)'.") }
                changes.append((.careHemisphere, value))
            }
        }
        if let timeZone {
            let value = timeZone.trimmingCharacters(in: .whitespaces)
            if value.isEmpty || value.lowercased() == "default" {
                changes.append((.careTimeZone, nil))
            } else {
                guard let zone = Self.timeZone(named: value) else {
                    throw .invalid("'\(timeZone)' is not a time zone; name one like Europe/Paris, America/Chicago or UTC.")
                }
                changes.append((.careTimeZone, zone.identifier))
            }
        }
        return changes
    }
}

extension CarePlanner {
    /// The same planner for a household with `settings`: its hemisphere and time zone.
    public func with(_ settings: CareSettings) -> CarePlanner {
        CarePlanner(store: store, hemisphere: settings.hemisphere, timeZone: settings.timeZone, now: now)
    }
}
