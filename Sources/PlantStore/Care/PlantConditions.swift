import Foundation
import PlantGuideCore

/// What a pot is made of: porous clay dries faster than plastic; a reservoir keeps soil wet longer.
public enum PotMaterial: String, Sendable, Codable, Hashable, CaseIterable {
    case plastic
    case terracotta
    case ceramic
    case selfWatering = "self-watering"

    /// How much this material stretches (> 1) or shortens (< 1) the watering interval.
    public var factor: Double {
        switch self {
        case .plastic, .ceramic: 1.0
        case .terracotta: 0.85
        case .selfWatering: 1.5
        }
    }
}

/// Where a plant lives, as far as it changes how fast its soil dries: the pot's size and material, the light of its
/// spot, a heater nearby, a summer outdoors. Set per plant (or for every plant of a room); each known condition is a
/// documented factor on the guide's watering interval (``factors(season:)``), PlantGuide's own rule of thumb, which
/// the care log then corrects (``IntervalLearner``).
public struct PlantConditions: Sendable, Codable, Hashable {
    /// The pot's inner diameter at the top, in centimetres (4–150); `nil` when not said.
    public var potCentimetres: Int?
    /// What the pot is made of.
    public var potMaterial: PotMaterial?
    /// The light of the spot.
    public var light: LightLevel?
    /// Whether a heater or radiator is near (it dries the soil in winter).
    public var nearHeater: Bool
    /// Whether the plant spends the growing season outdoors (sun and wind dry it faster).
    public var outdoorsInSummer: Bool

    /// Pots this small or large are refused as typing mistakes.
    public static let potRange = 4...150
    /// The pot size the guide's intervals are for.
    public static let referencePot = 15.0

    /// Conditions; nothing said by default.
    public init(
        potCentimetres: Int? = nil, potMaterial: PotMaterial? = nil, light: LightLevel? = nil, nearHeater: Bool = false,
        outdoorsInSummer: Bool = false
    ) {
        self.potCentimetres = potCentimetres
        self.potMaterial = potMaterial
        self.light = light
        self.nearHeater = nearHeater
        self.outdoorsInSummer = outdoorsInSummer
    }

    /// Whether nothing is said (the guide's intervals apply as they are).
    public var isEmpty: Bool { self == PlantConditions() }

    /// Refuses a pot outside ``potRange``.
    /// - Throws: ``StoreError/invalid(_:)``.
    public func checked() throws(StoreError) -> PlantConditions {
        if let pot = potCentimetres, !Self.potRange.contains(pot) {
            throw .invalid("A pot is \(Self.potRange.lowerBound) to \(Self.potRange.upperBound) cm across, not \(pot) cm.")
        }
        return self
    }

    /// One condition's effect on the watering interval in a season.
    public struct Factor: Sendable, Hashable, Codable {
        /// The condition in words, e.g. "pot 25 cm".
        public var condition: String
        /// The factor on the interval (1.2: 20 % longer).
        public var factor: Double
    }

    /// The watering interval's factors in `season`, one per condition that changes it.
    public func factors(season: CareSeason) -> [Factor] {
        var factors: [Factor] = []
        if let pot = potCentimetres {
            // Soil volume grows with the pot; its drying slows roughly with the square root of the diameter ratio.
            let factor = min(max((Double(pot) / Self.referencePot).squareRoot(), 0.7), 1.4)
            if abs(factor - 1) > 0.005 { factors.append(Factor(condition: "pot \(pot) cm", factor: factor)) }
        }
        if let material = potMaterial, material.factor != 1 {
            factors.append(Factor(condition: "\(material.rawValue) pot", factor: material.factor))
        }
        if let light {
            let factor = switch light {
            case .low: 1.25
            case .medium: 1.0
            case .brightIndirect: 0.9
            case .directSun: 0.8
            }
            if factor != 1 { factors.append(Factor(condition: "\(light.rawValue) light", factor: factor)) }
        }
        if nearHeater && season == .rest { factors.append(Factor(condition: "near a heater", factor: 0.75)) }
        if outdoorsInSummer && season == .growing { factors.append(Factor(condition: "outdoors for the summer", factor: 0.6)) }
        return factors
    }

    /// The product of ``factors(season:)``, within ½–2.
    public func factor(season: CareSeason) -> Double {
        let product = factors(season: season).map(\.factor).reduce(1, *)
        return min(max(product, 0.5), 2)
    }

    /// The guide's watering intervals with these conditions applied (rounded, at least a day).
    public func apply(to intervals: TaskIntervals) -> TaskIntervals {
        TaskIntervals(
            growing: intervals.growing.map { max(1, Int((Double($0) * factor(season: .growing)).rounded())) },
            rest: intervals.rest.map { max(1, Int((Double($0) * factor(season: .rest)).rounded())) }
        )
    }

    /// The conditions in a short line, e.g. "pot 25 cm, terracotta, bright indirect light, near a heater".
    public var summary: String {
        var parts: [String] = []
        if let pot = potCentimetres { parts.append("pot \(pot) cm") }
        if let material = potMaterial { parts.append(material.rawValue) }
        if let light { parts.append("\(light.rawValue) light") }
        if nearHeater { parts.append("near a heater") }
        if outdoorsInSummer { parts.append("outdoors for the summer") }
        return parts.isEmpty ? "not said" : parts.joined(separator: ", ")
    }
}
