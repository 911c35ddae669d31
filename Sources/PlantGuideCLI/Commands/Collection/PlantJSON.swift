import Foundation
import PlantGuideCore
import PlantStore

/// A plant as printed by `--json`: every key present, `null` when unset.
struct PlantJSON: Encodable {
    let plant: Plant

    private enum Keys: String, CodingKey {
        case id, uuid, name, species, nickname, room, acquiredOn, notes, createdAt, updatedAt
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(plant.id, forKey: .id)
        try container.encode(plant.uuid, forKey: .uuid)
        try container.encode(plant.name, forKey: .name)
        try container.encode(plant.species, forKey: .species)
        try container.encode(plant.nickname, forKey: .nickname)
        try container.encode(plant.room, forKey: .room)
        try container.encode(plant.acquiredOn, forKey: .acquiredOn)
        try container.encode(plant.notes, forKey: .notes)
        try container.encode(plant.createdAt, forKey: .createdAt)
        try container.encode(plant.updatedAt, forKey: .updatedAt)
    }
}

extension Console {
    /// `  #3  Monty — Monstera deliciosa  · Living room`
    func plantLine(_ plant: Plant) -> String {
        var line = "  " + style("#\(plant.id)", .dim) + "  " + style(plant.displayName, .bold)
        if plant.nickname != nil || plant.species != nil && plant.species != plant.name {
            line += " — " + (plant.species ?? plant.name)
        }
        if let room = plant.room { line += "  " + style("· \(room)", .dim) }
        return line
    }
}
