import Foundation

// The wire shape of Pl@ntNet v2 answers. Internal: callers see `PlantNetAnswer`. Every key the spec does not
// promise is optional, so a leaner or newer answer still decodes.

struct IdentifyResponse: Decodable {
    var query: Query?
    var language: String?
    var preferedReferential: String?
    var bestMatch: String?
    var results: [Result]
    var version: String?
    var remainingIdentificationRequests: Int?

    struct Query: Decodable {
        var project: String?
        var organs: [String]?
    }

    struct Result: Decodable {
        var score: Double
        var species: Species
        var gbif: ExternalID?
        var powo: ExternalID?
        /// Related images (with `include-related-images=true`); a malformed list is dropped, not fatal.
        var images: [Image]?

        private enum CodingKeys: String, CodingKey { case score, species, gbif, powo, images }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            score = try container.decode(Double.self, forKey: .score)
            species = try container.decode(Species.self, forKey: .species)
            gbif = try container.decodeIfPresent(ExternalID.self, forKey: .gbif)
            powo = try container.decodeIfPresent(ExternalID.self, forKey: .powo)
            images = (try? container.decodeIfPresent([Image].self, forKey: .images)) ?? nil
        }
    }

    /// One related image: who took it, under which licence, and its renditions (original, medium, small).
    struct Image: Decodable {
        var organ: String?
        var author: String?
        var license: String?
        var citation: String?
        var url: Renditions?

        struct Renditions: Decodable {
            var o: String?
            var m: String?
            var s: String?
        }
    }

    struct Species: Decodable {
        var scientificNameWithoutAuthor: String
        var scientificNameAuthorship: String?
        var scientificName: String?
        var genus: Taxon?
        var family: Taxon?
        var commonNames: [String]?
    }

    struct Taxon: Decodable {
        var scientificNameWithoutAuthor: String?
        var scientificName: String?
    }

    /// `gbif.id` is documented as a string; some answers carry a number, so both decode.
    struct ExternalID: Decodable {
        var id: String?

        private enum CodingKeys: String, CodingKey { case id }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            if let text = try? container.decodeIfPresent(String.self, forKey: .id) {
                id = text
            } else if let number = try? container.decodeIfPresent(Int.self, forKey: .id) {
                id = String(number)
            } else {
                id = nil
            }
        }
    }
}

/// `{statusCode, error, message}`, the body of every error answer.
struct ErrorResponse: Decodable {
    var statusCode: Int?
    var error: String?
    var message: String?
}

/// One entry of `GET /v2/projects`.
struct ProjectResponse: Decodable {
    var id: String
    var title: String?
    var description: String?
    var speciesCount: Int?
}
