import PlantCatalog
import PlantGuideCore
import Testing

/// Repeated searches are answered from the catalog's recent searches: the same hits as a fresh catalog gives,
/// with filters and limits applied to each question on its own.
@Suite struct SearchCacheTests {
    @Test func repeatedSearchesGiveWhatAFreshCatalogGives() throws {
        let warm = PlantCatalog()
        let queries = ["monstera", "fern", "snake plant", "Monstera deliciosa 'Thai Constellation'", "sanseviera", "aloe vera"]
        for _ in 0..<2 {
            for query in queries {
                let fresh = PlantCatalog()
                #expect(try warm.search(query) == fresh.search(query), "\(query)")
                #expect(try warm.search(query, limit: 3) == fresh.search(query, limit: 3), "\(query)")
                #expect(try warm.search(query, category: .fern) == fresh.search(query, category: .fern), "\(query)")
                #expect(try warm.search(query, family: "ARACEAE") == fresh.search(query, family: "ARACEAE"), "\(query)")
            }
        }
        // A filter is part of the question: the unfiltered answer is not reused for it.
        let all = try warm.search("fern")
        let ferns = try warm.search("fern", category: .fern)
        #expect(!ferns.isEmpty && ferns.count < all.count)
        #expect(ferns.allSatisfy { $0.plant.category == .fern })
        // More distinct searches than are kept still give the right answers.
        for number in 0..<600 { _ = try warm.search("plant \(number)") }
        #expect(try warm.search("monstera") == PlantCatalog().search("monstera"))
        #expect(try warm.search("monstera").first?.plant.scientificName.hasPrefix("Monstera") == true)
    }
}
