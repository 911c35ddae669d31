/// Changes of the bundled care guide that profiles already copied into a collection must follow too, frozen as they were
/// released (migrations read them, and a released migration never changes).
public enum CareGuideRevisions {
    /// One genus's toxicity as a revision of the guide gives it.
    public struct Toxicity: Sendable, Hashable {
        /// The genus, as care profiles name it in their basis ("genus Tillandsia").
        public var genus: String
        /// Toxic to cats (also for unknown: toxic, to be safe).
        public var cats: Bool
        /// Toxic to dogs (also for unknown).
        public var dogs: Bool
        /// The row's source: the ASPCA pages it rests on, or "not verified: …".
        public var source: String

        /// The basis a profile copied from this genus's row carries.
        public var basis: String { "genus \(genus)" }
    }

    /// November 2026 (SQLite v20, PostgreSQL pg12): every toxicity value checked against the ASPCA facts of
    /// `aspca-facts.tsv`. Four genera said "not toxic" without an ASPCA page found and are now unknown (kept as toxic);
    /// eleven unknown ones are now known from ASPCA pages; two said toxic without a page and are now unknown.
    public static let toxicity2026November: [Toxicity] = [
        unknown("Adiantum"), unknown("Ceropegia"), unknown("Tillandsia"), unknown("Vriesea"),
        unknown("Codiaeum"), unknown("Curio"),
        Toxicity(genus: "Scindapsus", cats: true, dogs: true, source: aspca("Satin Pothos (Scindapsus pictus)")),
        nonToxic("Davallia", "Hare Fern (Davallia spp.); Dainty Rabbits-Foot Fern (Davallia fejeensis)"),
        nonToxic("Pteris", "Silver Table Fern (Pteris sp.)"),
        nonToxic("Lithops", "Living Stones (Lithops naureeniae)"),
        nonToxic("Mammillaria", "Thimble Cactus (Mammillaria fragilis)"),
        nonToxic("Opuntia", "Tree Cactus (Opuntia species)"),
        nonToxic("Oncidium", "Dancing Doll Orchid (Oncidium flexuosum); Golden Shower Orchid (Oncidium sphacelatum)"),
        nonToxic("Phoenix", "Miniature Date Palm (Phoenix robellinii); Canary Date Palm (Phoenix canariensis)"),
        nonToxic(
            "Cryptanthus",
            "Earth Star (Cryptanthus bivattus minor); Pheasant Plant (Cryptanthus zonatus); Silver Star (Cryptanthus lacerdae)"
        ),
        nonToxic("Neoregelia", "Blushing Bromeliad (Neoregalia spp.); Fingernail Plant (Neoregelia spectabilis)"),
        nonToxic("Salvia", "Sage (Salvia officinalis); Scarlet Sage (Salvia coccinea)"),
    ]

    private static func aspca(_ pages: String) -> String { "ASPCA toxic and non-toxic plant list: \(pages)" }

    private static func nonToxic(_ genus: String, _ pages: String) -> Toxicity {
        Toxicity(genus: genus, cats: false, dogs: false, source: aspca(pages))
    }

    private static func unknown(_ genus: String) -> Toxicity {
        Toxicity(
            genus: genus, cats: true, dogs: true,
            source: "not verified: no ASPCA entry found for this genus; treated as toxic to be safe"
        )
    }
}
