import Foundation
import PlantGuideCore

// The rules every store applies when it writes plants, care events and identifications, so SQLite and PostgreSQL accept
// and refuse the same input with the same errors.

extension Plant {
    /// The record of a plant to add: the name trimmed and required, blank optional texts left out, a new UUID, both times
    /// `now` (already rounded to milliseconds). Its id is 0 until a store inserts it.
    /// - Throws: ``StoreError/invalid(_:)`` when the name is blank.
    package static func new(_ plant: NewPlant, now: Date) throws(StoreError) -> Plant {
        let name = plant.name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty else { throw .invalid("A plant needs a name or a species.") }
        return Plant(
            id: 0, uuid: UUID().uuidString.lowercased(), name: name, species: plant.species.nonEmpty,
            nickname: plant.nickname.nonEmpty, room: plant.room.nonEmpty, acquiredOn: plant.acquiredOn,
            notes: plant.notes.nonEmpty, createdAt: now, updatedAt: now
        )
    }

    /// Refuses text over ``PlantGuideCore/InputLimits``: every way a plant is written passes here.
    package func checkLimits() throws(StoreError) {
        let fields: [(String, String?, Int)] = [
            ("name", name, InputLimits.plantNameCharacters),
            ("species", species, InputLimits.plantNameCharacters),
            ("nickname", nickname, InputLimits.nicknameCharacters),
            ("room", room, InputLimits.roomCharacters),
            ("note", notes, InputLimits.noteCharacters),
        ]
        for (what, text, limit) in fields where InputLimits.exceeds(text ?? "", characters: limit) {
            throw .invalid(InputLimits.tooLong(what, characters: limit))
        }
    }

    /// Refuses an edited plant without a name, or with text over the limits.
    package func checkEdit() throws(StoreError) {
        guard !name.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw .invalid("A plant needs a name or a species.")
        }
        try checkLimits()
    }
}

extension SpeciesConfirmation {
    /// The confirmed species as stored: trimmed, required and within the name limit.
    package func checkedSpecies() throws(StoreError) -> String {
        let species = species.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !species.isEmpty else { throw .invalid("A confirmed species needs a name.") }
        guard !InputLimits.exceeds(species, characters: InputLimits.plantNameCharacters) else {
            throw .invalid(InputLimits.tooLong("species", characters: InputLimits.plantNameCharacters))
        }
        return species
    }
}

extension CareEvent {
    /// A care note as stored: refused over the note limit, `nil` when blank.
    package static func checkedNote(_ note: String?) throws(StoreError) -> String? {
        if InputLimits.exceeds(note ?? "", characters: InputLimits.noteCharacters) {
            throw .invalid(InputLimits.tooLong("note", characters: InputLimits.noteCharacters))
        }
        return note.nonEmpty
    }

    /// How many entries one plant's care log takes for one day: more is a script gone wrong, not care.
    package static let maximumPerDay = 50

    /// Refuses another entry for a day that has ``maximumPerDay`` already.
    package static func check(entriesThatDay count: Int, plantId: Int64, day: CalendarDay) throws(StoreError) {
        if count >= maximumPerDay {
            throw .invalid("Plant \(plantId) has \(maximumPerDay) care entries on \(day) already; that is the most one day takes.")
        }
    }

    /// Refuses a soil reading on another task than watering: the soil tells when to water, nothing else.
    package static func check(soil: SoilReading?, task: CareTask) throws(StoreError) {
        if soil != nil && task != .water {
            throw .invalid("A soil check belongs to watering, not to \(task.rawValue).")
        }
    }
}

extension FiledIdentification {
    /// The record of an identification to file, before a store gives it an id, plant and photo: its date rounded to
    /// milliseconds, only known stage timings kept, and the chosen species (by default the best prediction).
    /// - Throws: ``StoreError/invalid(_:)`` when asked to file under an existing plant and a new one at once.
    package static func toFile(
        _ identification: Identification, chosenSpecies: String?, underPlant plantId: Int64?, creatingPlant: Bool
    ) throws(StoreError) -> FiledIdentification {
        if plantId != nil && creatingPlant {
            throw .invalid("File an identification under an existing plant or a new one, not both.")
        }
        var identification = identification
        identification.date = identification.date.roundedToMilliseconds
        identification.timings = StageTimingsColumn.kept(identification.timings)
        return FiledIdentification(
            id: 0, uuid: UUID().uuidString.lowercased(), plantId: nil, photoSHA256: nil, identification: identification,
            chosenSpecies: chosenSpecies.nonEmpty ?? identification.best?.scientificName
        )
    }
}
