import Foundation

/// A small catalog file in the bundled format, for tests that need known catalog entries without
/// depending on the real catalog's content. Point `PLANTGUIDE_CATALOG` at the written file.
public enum CatalogFixture {
    /// `(scientific name, common names, family, category)` of every fixture entry.
    public static let plants: [(String, [String], String, String)] = [
        ("Monstera deliciosa", ["Swiss cheese plant", "Monstera"], "Araceae", "Tropical Foliage"),
        ("Epipremnum aureum", ["Golden pothos", "Devil's ivy"], "Araceae", "Trailing/Climbing"),
        ("Dracaena trifasciata", ["Snake plant", "Mother-in-law's tongue"], "Asparagaceae", "Succulent"),
        ("Nephrolepis exaltata", ["Boston fern"], "Nephrolepidaceae", "Fern"),
        ("Phalaenopsis amabilis", ["Moth orchid"], "Orchidaceae", "Orchid"),
        ("Mammillaria elongata", ["Ladyfinger cactus"], "Cactaceae", "Cactus"),
        ("Obscurella imaginaria", ["Imaginary plant"], "Araceae", "Bromeliad"),
    ]

    /// Writes the fixture catalog to `url` (JSON, as `PlantCatalog` reads it).
    public static func write(to url: URL) throws {
        let entries = plants.map { plant in
            ["scientific_name": plant.0, "common_names": plant.1, "family": plant.2, "category": plant.3] as [String: Any]
        }
        let file: [String: Any] = [
            "source_date": "2026-01-01", "total_plants": entries.count, "sources": [String](), "plants": entries,
        ]
        try JSONSerialization.data(withJSONObject: file, options: [.sortedKeys]).write(to: url)
    }
}
