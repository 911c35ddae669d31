/// The part of the plant a photo shows, as Pl@ntNet names it.
public enum PlantNetOrgan: String, Sendable, Codable, Hashable, CaseIterable {
    case leaf, flower, fruit, bark
    /// Let the service decide (the spec's advice when the person does not know).
    case auto
    /// The whole plant; only beside a photo of a primary organ.
    case habit
    /// Anything else; only beside a photo of a primary organ.
    case other

    /// Leaf, flower, fruit, bark and auto: organs that may stand alone.
    public var isPrimary: Bool {
        switch self {
        case .leaf, .flower, .fruit, .bark, .auto: true
        case .habit, .other: false
        }
    }
}
