import ArgumentParser
import Foundation
import PlantStore

/// `plantguide collection confirm ID [SPECIES]`: makes a plant's photos exemplars of its species.
struct CollectionConfirmCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "confirm",
        abstract: "Confirm a plant's species, so its photos name that species in later identifications.",
        discussion: """
            Plants added by a name the catalog knows, or created from an identification you accepted \
            (`identify --save --create-plant`), are confirmed already. Undo with `collection unconfirm`.

            Examples:
              plantguide collection confirm 3
              plantguide collection confirm 3 "Dracaena trifasciata"
            """
    )

    @Argument(help: "The plant's id (see `collection list`).", transform: PlantID.init(parsing:))
    var id: PlantID

    @Argument(help: "The species (scientific name); by default the plant's catalog species.")
    var species: [String] = []

    @OptionGroup var output: OutputOptions

    func run(in context: CommandContext) async throws {
        let console = Console()
        let environment = try CollectionEnvironment.load(context)
        let plantId = id.value
        guard let plant = try await environment.store.plant(id: plantId) else { throw StoreError.plantNotFound(plantId) }
        let given = species.joined(separator: " ").trimmingCharacters(in: .whitespaces)
        guard let name = given.isEmpty ? plant.species : given else {
            throw ValidationError("Plant #\(plantId) has no catalog species: give one, e.g. `plantguide collection confirm \(plantId) \"Monstera deliciosa\"`.")
        }
        let confirmation = SpeciesConfirmation(species: environment.collection.lookup(name)?.scientificName ?? name, source: .name)
        try await environment.store.confirmSpecies(confirmation, ofPlant: plantId, now: environment.now())
        let stored = try await environment.store.confirmation(ofPlant: plantId)
        if output.json {
            try console.printJSON(ConfirmationJSON(plantId: plantId, key: "confirmation", confirmation: stored))
        } else {
            console.print("Confirmed \(confirmation.species) for plant #\(plantId) \(plant.displayName): its photos now name it.")
        }
    }
}

/// `plantguide collection unconfirm ID`: undoes a wrong confirmation.
struct CollectionUnconfirmCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unconfirm",
        abstract: "Withdraw a plant's confirmed species (its photos stop naming that species).",
        discussion: """
            Use it when a plant was confirmed as the wrong species. Its photos still recognise the plant \
            itself ("Is this Spike?"), but no longer offer its species as a candidate.

            Example:
              plantguide collection unconfirm 3 --json
            """
    )

    @Argument(help: "The plant's id (see `collection list`).", transform: PlantID.init(parsing:))
    var id: PlantID

    @OptionGroup var output: OutputOptions

    func run(in context: CommandContext) async throws {
        let console = Console()
        let environment = try CollectionEnvironment.load(context)
        let plantId = id.value
        guard let plant = try await environment.store.plant(id: plantId) else { throw StoreError.plantNotFound(plantId) }
        let withdrawn = try await environment.store.unconfirmSpecies(ofPlant: plantId)
        if output.json {
            try console.printJSON(ConfirmationJSON(plantId: plantId, key: "withdrawn", confirmation: withdrawn))
        } else if let withdrawn {
            console.print("Plant #\(plantId) \(plant.displayName) is no longer confirmed as \(withdrawn.species).")
        } else {
            console.print("Plant #\(plantId) \(plant.displayName) had no confirmed species.")
        }
    }
}

/// `{"plantId": 3, "<key>": {"species": …, "source": …, "confirmedAt": …} or null}`.
private struct ConfirmationJSON: Encodable {
    var plantId: Int64
    var key: String
    var confirmation: SpeciesConfirmation?

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(plantId, forKey: Key(stringValue: "plantId"))
        try container.encode(confirmation, forKey: Key(stringValue: key))
    }
}
