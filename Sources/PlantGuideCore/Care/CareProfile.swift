/// How much light a plant wants.
public enum LightLevel: String, Sendable, Codable, Hashable, CaseIterable {
    case low
    case medium
    case brightIndirect = "bright indirect"
    case directSun = "direct sun"
}

/// How humid the air around a plant should be.
public enum HumidityLevel: String, Sendable, Codable, Hashable, CaseIterable {
    case low
    case medium
    case high
}

/// Everything PlantGuide advises for keeping one kind of plant: light, water, feeding, humidity,
/// temperature and whether it is toxic to pets.
public struct CareProfile: Sendable, Codable, Hashable {
    /// Light the plant wants.
    public var light: LightLevel
    /// Days between waterings while the plant grows (spring and summer).
    public var waterGrowingDays: Int
    /// Days between waterings in the rest season.
    public var waterWinterDays: Int
    /// Days between feeds in the growing season; `nil` for plants that are not fed. Never in winter.
    public var fertilizeGrowingDays: Int?
    /// Days between mistings, for plants that want humid air; `nil` when misting is not advised.
    public var mistDays: Int?
    /// Days between repottings; `nil` for plants that live without a pot (air plants).
    public var repotDays: Int?
    /// Days between prunings in the growing season; `nil` when the plant needs none.
    public var pruneDays: Int?
    /// Humidity the plant wants.
    public var humidity: HumidityLevel
    /// Lowest comfortable temperature, °C.
    public var minTemperature: Int
    /// Highest comfortable temperature, °C.
    public var maxTemperature: Int
    /// Whether the plant is toxic to cats.
    public var toxicToCats: Bool
    /// Whether the plant is toxic to dogs.
    public var toxicToDogs: Bool
    /// Where the toxicity facts come from, e.g. "ASPCA toxic and non-toxic plant list".
    public var toxicitySource: String
    /// What the profile was derived from, e.g. `genus Monstera`, `category Cactus` or `trefle`.
    public var basis: String

    /// Creates a profile.
    public init(
        light: LightLevel, waterGrowingDays: Int, waterWinterDays: Int, fertilizeGrowingDays: Int?,
        mistDays: Int?, repotDays: Int?, pruneDays: Int?, humidity: HumidityLevel,
        minTemperature: Int, maxTemperature: Int, toxicToCats: Bool, toxicToDogs: Bool,
        toxicitySource: String, basis: String
    ) {
        self.light = light
        self.waterGrowingDays = waterGrowingDays
        self.waterWinterDays = waterWinterDays
        self.fertilizeGrowingDays = fertilizeGrowingDays
        self.mistDays = mistDays
        self.repotDays = repotDays
        self.pruneDays = pruneDays
        self.humidity = humidity
        self.minTemperature = minTemperature
        self.maxTemperature = maxTemperature
        self.toxicToCats = toxicToCats
        self.toxicToDogs = toxicToDogs
        self.toxicitySource = toxicitySource
        self.basis = basis
    }

    /// Days between two occurrences of `task` in the growing season (`nil`: not done then).
    public func growingInterval(for task: CareTask) -> Int? {
        switch task {
        case .water: waterGrowingDays
        case .fertilize: fertilizeGrowingDays
        case .repot: repotDays
        case .mist: mistDays
        case .prune: pruneDays
        }
    }

    /// Days between two occurrences of `task` in the rest season (`nil`: not done then).
    public func restInterval(for task: CareTask) -> Int? {
        switch task {
        case .water: waterWinterDays
        case .fertilize, .prune: nil
        case .repot: repotDays
        case .mist: mistDays.map { $0 * 2 }
        }
    }
}

extension CareProfile {
    /// Whether the toxicity facts were checked against a named reference. When not (the source says "not verified"),
    /// the stored values say toxic, to be safe, and every wording says "unknown": never "not toxic" on an unchecked
    /// claim, nor "toxic" as if it were known.
    public var toxicityIsKnown: Bool { !toxicitySource.lowercased().contains("not verified") }

    /// What the profile says about cats and dogs, as a sentence: "Toxic to cats and dogs", "Not toxic to cats or dogs",
    /// or, when not verified, "Unknown: keep away from cats and dogs until you know".
    public var petToxicity: String {
        guard toxicityIsKnown else { return "Unknown: keep away from cats and dogs until you know" }
        return switch (toxicToCats, toxicToDogs) {
        case (true, true): "Toxic to cats and dogs"
        case (true, false): "Toxic to cats, not to dogs"
        case (false, true): "Toxic to dogs, not to cats"
        case (false, false): "Not toxic to cats or dogs"
        }
    }

    /// The profile in one line, e.g. `bright indirect light · water every 7 days (21 in winter) · high humidity ·
    /// 15–30 °C · toxic to cats and dogs`.
    public var summary: String {
        var parts = ["\(light.rawValue) light", "water every \(waterGrowingDays) days (\(waterWinterDays) in winter)"]
        parts.append("\(humidity.rawValue) humidity")
        parts.append("\(minTemperature)–\(maxTemperature) °C")
        let pets = switch (toxicityIsKnown, toxicToCats, toxicToDogs) {
        case (false, _, _): "toxicity to pets unknown (keep them away)"
        case (true, true, true): "toxic to cats and dogs"
        case (true, true, false): "toxic to cats"
        case (true, false, true): "toxic to dogs"
        case (true, false, false): "not toxic to cats or dogs"
        }
        parts.append(pets)
        return parts.joined(separator: " · ")
    }
}
