import Foundation

// The wire shape of Pl@ntNet's disease service (my.plantnet.org/doc/api/diseases). Internal: callers see
// `DiagnosisAnswer` and `KnownDisease`. The documentation promises little of it, so every key is optional and a
// malformed entry is dropped rather than failing the answer.

/// `POST /v2/diseases/identify`: `{query, language, results: [{name, description, score, images}], version,
/// remainingIdentificationRequests}`, results best first, `name` the EPPO code.
struct DiseaseIdentifyResponse: Decodable {
    var query: Query?
    var language: String?
    var results: [Result]
    var version: String?
    var remainingIdentificationRequests: Int?

    struct Query: Decodable {
        var organs: [String]?
        var includeRelatedImages: Bool?
        var noReject: Bool?
    }

    struct Result: Decodable {
        var name: String?
        var description: String?
        var score: Double?
        var images: [IdentifyResponse.Image]?

        private enum CodingKeys: String, CodingKey { case name, description, score, images }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try? container.decodeIfPresent(String.self, forKey: .name)
            description = try? container.decodeIfPresent(String.self, forKey: .description)
            score = try? container.decodeIfPresent(Double.self, forKey: .score)
            images = (try? container.decodeIfPresent([IdentifyResponse.Image].self, forKey: .images)) ?? nil
        }
    }

    private enum CodingKeys: String, CodingKey { case query, language, results, version, remainingIdentificationRequests }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        query = try? container.decodeIfPresent(Query.self, forKey: .query)
        language = try? container.decodeIfPresent(String.self, forKey: .language)
        // A missing list is an answer with no disease; a list that is not a list is a malformed answer.
        results = try container.decodeIfPresent([Result].self, forKey: .results) ?? []
        version = try? container.decodeIfPresent(String.self, forKey: .version)
        remainingIdentificationRequests = try? container.decodeIfPresent(Int.self, forKey: .remainingIdentificationRequests)
    }
}

/// One entry of `GET /v2/diseases`: `{name, label, categories}`, `name` the EPPO code.
struct DiseaseListEntry: Decodable {
    var name: String?
    var label: String?
    var categories: [String]?

    private enum CodingKeys: String, CodingKey { case name, label, categories }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try? container.decodeIfPresent(String.self, forKey: .name)
        label = try? container.decodeIfPresent(String.self, forKey: .label)
        categories = try? container.decodeIfPresent([String].self, forKey: .categories)
    }
}
