import Foundation

/// How the Pl@ntNet stub answers. Change it while the stub runs with ``PlantNetStub/configure(_:)``.
public struct PlantNetStubBehaviour: Sendable {
    /// The only API key accepted; any other gets 401.
    public var apiKey = "stub-key"
    /// Species in every successful answer, best first.
    public var species: [StubSpecies] = StubSpecies.houseplants
    /// Diseases in every successful disease answer, best first (empty: "no disease found").
    public var diseases: [StubDisease] = StubDisease.answer
    /// The disease list `GET /v2/diseases` answers.
    public var diseaseList: [StubDisease] = StubDisease.list
    /// Answer 404 "Species not found" ("this is not a plant"), to identifications and diagnoses alike.
    public var notAPlant = false
    /// After this many successful identifications, answer 429.
    public var quotaLimit = 500
    /// Wait this long before every answer.
    public var latency: Duration = .zero
    /// Statuses to answer with, one per identification request, before answering normally (e.g. `[500]`).
    public var failures: [Int] = []
    /// Answer 200 with a body that is not valid JSON.
    public var malformedAnswer = false
    /// Send the `RateLimit` header.
    public var sendsRateLimitHeader = true

    /// The default behaviour: key `stub-key`, a Monstera, 500 requests a day, no delay.
    public init() {}
}

/// A species the stub answers with.
public struct StubSpecies: Sendable, Hashable {
    public var scientificName: String
    public var authorship: String
    public var genus: String
    public var family: String
    public var commonNames: [String]
    public var score: Double
    public var gbifId: String

    /// Creates a species; the genus is the name's first word.
    public init(
        _ scientificName: String, authorship: String = "", family: String, commonNames: [String] = [], score: Double,
        gbifId: String
    ) {
        self.scientificName = scientificName
        self.authorship = authorship
        genus = String(scientificName.split(separator: " ").first ?? "")
        self.family = family
        self.commonNames = commonNames
        self.score = score
        self.gbifId = gbifId
    }

    /// A confident Monstera answer with three distant runners-up, the last not in the catalog (its genus is).
    public static let houseplants = [
        StubSpecies(
            "Monstera deliciosa", authorship: "Liebm.", family: "Araceae",
            commonNames: ["Swiss cheese plant", "Ceriman"], score: 0.91, gbifId: "2868241"
        ),
        StubSpecies(
            "Epipremnum aureum", authorship: "(Linden & André) G.S.Bunting", family: "Araceae",
            commonNames: ["Golden pothos"], score: 0.04, gbifId: "2868323"
        ),
        StubSpecies(
            "Philodendron hederaceum", authorship: "(Jacq.) Schott", family: "Araceae",
            commonNames: ["Heartleaf philodendron"], score: 0.02, gbifId: "2871034"
        ),
        StubSpecies("Monstera acuminata", authorship: "K.Koch", family: "Araceae", commonNames: [], score: 0.01, gbifId: "2868237"),
    ]
}

/// A disease the stub answers with or lists. Test data: the EPPO codes BOTRCI (Botrytis cinerea), TETRUR (Tetranychus
/// urticae) and PHYTIN (Phytophthora infestans) are real codes; ZZSTUB is the stub's own, in no list.
public struct StubDisease: Sendable, Hashable {
    /// The EPPO code, the answer's `name`.
    public var eppoCode: String
    /// The answer's `description` (or the list's `label`); `nil` leaves the key out.
    public var name: String?
    /// The score in an answer.
    public var score: Double
    /// The list's `categories`.
    public var categories: [String]

    /// Creates a disease.
    public init(_ eppoCode: String, name: String?, score: Double = 0, categories: [String] = []) {
        self.eppoCode = eppoCode
        self.name = name
        self.score = score
        self.categories = categories
    }

    /// Grey mould first; a spider mite named only by the list; a code the list does not have.
    public static let answer = [
        StubDisease("BOTRCI", name: "Grey mould", score: 0.62),
        StubDisease("TETRUR", name: nil, score: 0.21),
        StubDisease("ZZSTUB", name: nil, score: 0.05),
    ]

    /// The list: the answer's two known codes and late blight.
    public static let list = [
        StubDisease("BOTRCI", name: "Grey mould", categories: ["fungus"]),
        StubDisease("TETRUR", name: "Two-spotted spider mite", categories: ["pest"]),
        StubDisease("PHYTIN", name: "Late blight", categories: ["oomycete"]),
    ]
}

/// One request as the stub received it.
public struct PlantNetStubRequest: Sendable {
    public var method: String
    /// Path without the query, e.g. `/v2/identify/all`.
    public var path: String
    /// Query parameters (last value wins).
    public var query: [String: String]
    /// Headers, names lower-cased.
    public var headers: [String: String]
    /// The multipart parts, for identification requests that parsed.
    public var parts: [StubPart]
    /// Size of the body.
    public var bodyBytes: Int
    /// The status the stub answered with.
    public var status: Int
}
