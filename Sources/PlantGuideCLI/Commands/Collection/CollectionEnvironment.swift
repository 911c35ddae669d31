import ArgumentParser
import Foundation
import PlantCatalog
import PlantClassifier
import PlantGuideCore
import PlantGuideLive
import PlantStore

/// The live collection, care planner and catalog for one command run: the one place the command
/// line chooses implementations for the store.
///
/// The household's hemisphere and time zone (`plantguide household set`) decide which months are winter and what
/// "today" is; where it chose none, the environment does: `PLANTGUIDE_HEMISPHERE` (`north`, the default, or `south`)
/// and `TZ`. `PLANTGUIDE_NOW` (an ISO 8601 instant) pins the clock for demos and tests.
struct CollectionEnvironment {
    let directory: DataDirectory
    /// The collection's database: the one `--database` / `PLANTGUIDE_DATABASE_URL` chose, else the data directory's.
    let store: any PlantGuideStore
    let collection: PlantCollection
    /// The planner with the environment's hemisphere and time zone; ``planner`` adds the household's.
    let defaultPlanner: CarePlanner
    let catalog: PlantCatalog
    /// The current time (pinned by `PLANTGUIDE_NOW`).
    let now: @Sendable () -> Date

    /// - Parameter embedder: computes the embedding of each photo added (see ``defaultEmbedder(environment:)``).
    static func load(_ context: CommandContext, embedder: PhotoEmbedder? = nil) throws -> CollectionEnvironment {
        let directory = context.directory
        let now = try clock(context.environment)
        let hemisphere = try Self.hemisphere(context.environment)
        let catalog = PlantCatalog()
        let store = try context.open()
        var collection = PlantCollection(
            store: store, photos: PhotoLibrary(directory: directory, encoder: LivePhotoEncoder.make()),
            careGuide: try CareGuide.bundled(), lookup: { catalog.entry(matching: $0) }, now: now
        )
        collection.embedder = embedder
        let planner = CarePlanner(store: store, hemisphere: hemisphere, timeZone: .current, now: now)
        return CollectionEnvironment(
            directory: directory, store: store, collection: collection, defaultPlanner: planner, catalog: catalog, now: now
        )
    }

    /// The care planner of the household the command acts for: its hemisphere and time zone where it chose them
    /// (`plantguide household set`), the environment's otherwise. Read when first asked, so commands that never plan
    /// care do not open the database for it.
    var planner: CarePlanner {
        get async throws {
            let settings = try await store.householdSettings(household: HouseholdScope.current?.household ?? HouseholdScope.home.household)
            return defaultPlanner.with(CareSettings(settings: settings, defaults: careDefaults))
        }
    }

    /// The environment's hemisphere and time zone.
    var careDefaults: CareSettings {
        CareSettings(hemisphere: defaultPlanner.scheduler.hemisphere, timeZone: defaultPlanner.timeZone)
    }

    /// The embedder of the installed default model, or `nil` when none is installed or it cannot be loaded (photos
    /// are then indexed later by `plantguide collection reindex`).
    static func defaultEmbedder(environment: [String: String] = ProcessInfo.processInfo.environment) -> PhotoEmbedder? {
        let store = ModelStore(dataDirectory: DataDirectory.resolve(environment: environment))
        guard let url = store.defaultModel(), let classifier = try? Classifier(contentsOf: url) else { return nil }
        return .live(classifier: classifier)
    }

    /// The recognition thresholds from the environment (`PLANTGUIDE_MATCH_THRESHOLD`, …), the defaults otherwise.
    static func recognitionSettings(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws -> RecognitionSettings {
        do {
            return try RecognitionSettings(environment: environment)
        } catch {
            throw ValidationError(error.description)
        }
    }

    /// Matches photos embedded by `model` against this collection's stored embeddings (read once, here).
    func recognizer(settings: RecognitionSettings, model: EmbeddingModel) async throws -> CollectionRecognizer {
        let exemplars = try await store.exemplars(model: model)
        return .live(settings: settings) { requested in requested == model ? exemplars : [] }
    }

    private static func hemisphere(_ environment: [String: String]) throws -> Hemisphere {
        guard let hemisphere = Hemisphere(environment: environment) else {
            let value = environment[Hemisphere.environmentVariable] ?? ""
            throw ValidationError("\(Hemisphere.environmentVariable) must be 'north' or 'south', not '\(value)'.")
        }
        return hemisphere
    }

    static func clock(_ environment: [String: String]) throws -> @Sendable () -> Date {
        guard let value = environment["PLANTGUIDE_NOW"], !value.isEmpty else { return { Date() } }
        guard let fixed = ISO8601DateFormatter().date(from: value) else {
            throw ValidationError("PLANTGUIDE_NOW must be an ISO 8601 instant like 2026-06-01T09:00:00Z, not '\(value)'.")
        }
        return { fixed }
    }
}

/// A plant's id as a person types it: `12`, `#12` or ` 12 `; a whole number above 0.
struct PlantID: ExpressibleByArgument, Hashable, Sendable {
    /// The id in the store.
    var value: Int64

    init?(argument: String) {
        guard let value = Int64(argument.trimmingCharacters(in: CharacterSet(charactersIn: "# "))), value > 0 else { return nil }
        self.value = value
    }

    /// The id in `text`, or an error that says what an id looks like and where to find one.
    init(parsing text: String) throws {
        guard let id = PlantID(argument: text) else {
            throw ValidationError("'\(text)' is not a plant id; ids are whole numbers (see `plantguide collection list`).")
        }
        self = id
    }
}

/// Parses a `YYYY-MM-DD` option; given `today`, also the words `today` and `yesterday`.
func parseDay(_ text: String?, option: String, today: CalendarDay? = nil) throws -> CalendarDay? {
    guard let text else { return nil }
    if let today {
        switch text.lowercased() {
        case "today": return today
        case "yesterday": return today.adding(days: -1)
        default: break
        }
    }
    guard let day = CalendarDay(text) else {
        let words = today == nil ? "" : ", 'today' or 'yesterday'"
        throw ValidationError("\(option) must be a date like 2026-03-01\(words), not '\(text)'.")
    }
    return day
}

/// Reads a file named on the command line.
func readInputFile(_ path: String) throws -> Data {
    do {
        return try Data(contentsOf: URL(fileURLWithPath: path))
    } catch {
        throw ValidationError("Cannot read \(path): \(error.localizedDescription)")
    }
}
