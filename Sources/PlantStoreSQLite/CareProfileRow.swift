import GRDB
import PlantGuideCore
import PlantStore

/// A plant's care profile row: the profile plus the plant it belongs to.
struct CareProfileRow: FetchableRecord, PersistableRecord {
    static let databaseTableName = "careProfile"

    var plantId: Int64
    var profile: CareProfile

    init(plantId: Int64, profile: CareProfile) {
        self.plantId = plantId
        self.profile = profile
    }

    init(row: Row) throws {
        plantId = row["plantId"]
        guard let light = LightLevel(rawValue: row["light"]), let humidity = HumidityLevel(rawValue: row["humidity"]) else {
            throw StoreError.invalid("care profile of plant \(plantId) has an unknown light or humidity level")
        }
        profile = CareProfile(
            light: light, waterGrowingDays: row["waterGrowingDays"], waterWinterDays: row["waterWinterDays"],
            fertilizeGrowingDays: row["fertilizeGrowingDays"], mistDays: row["mistDays"], repotDays: row["repotDays"],
            pruneDays: row["pruneDays"], humidity: humidity, minTemperature: row["minTemperature"],
            maxTemperature: row["maxTemperature"], toxicToCats: row["toxicToCats"], toxicToDogs: row["toxicToDogs"],
            toxicitySource: row["toxicitySource"], basis: row["basis"]
        )
    }

    func encode(to container: inout PersistenceContainer) throws {
        container["plantId"] = plantId
        container["light"] = profile.light.rawValue
        container["waterGrowingDays"] = profile.waterGrowingDays
        container["waterWinterDays"] = profile.waterWinterDays
        container["fertilizeGrowingDays"] = profile.fertilizeGrowingDays
        container["mistDays"] = profile.mistDays
        container["repotDays"] = profile.repotDays
        container["pruneDays"] = profile.pruneDays
        container["humidity"] = profile.humidity.rawValue
        container["minTemperature"] = profile.minTemperature
        container["maxTemperature"] = profile.maxTemperature
        container["toxicToCats"] = profile.toxicToCats
        container["toxicToDogs"] = profile.toxicToDogs
        container["toxicitySource"] = profile.toxicitySource
        container["basis"] = profile.basis
    }
}
