import Foundation
import PlantGuideCore

/// An identification kept in the history: which photo, what the identifier said, and which species
/// the owner chose.
public struct FiledIdentification: Sendable, Hashable, Codable, Identifiable {
    public var id: Int64
    /// Identity across collections.
    public var uuid: String
    /// The plant it was filed under, if any.
    public var plantId: Int64?
    /// The photo that was identified, if it was stored.
    public var photoSHA256: String?
    /// What the identifier answered (source, model version, predictions, date).
    public var identification: Identification
    /// The species the owner settled on, if any.
    public var chosenSpecies: String?
    /// The identification this one re-checked, when it is the answer of a Pl@ntNet re-check.
    public var recheckOf: Int64? = nil
    /// The name of the account that identified it (`nil` from the command line, or before there were accounts).
    public var recordedBy: String? = nil

    /// A filed identification as a store reads or writes it.
    package init(
        id: Int64, uuid: String, plantId: Int64?, photoSHA256: String?, identification: Identification, chosenSpecies: String?,
        recheckOf: Int64? = nil, recordedBy: String? = nil
    ) {
        self.id = id
        self.uuid = uuid
        self.plantId = plantId
        self.photoSHA256 = photoSHA256
        self.identification = identification
        self.chosenSpecies = chosenSpecies
        self.recheckOf = recheckOf
        self.recordedBy = recordedBy
    }

    /// A filed identification from the columns every backend stores: the predictions as JSON, the stage timings as a JSON
    /// object (or `nil`).
    package init(
        id: Int64, uuid: String, plantId: Int64?, photoSHA256: String?, source: String, model: String?, predictionsJSON: String,
        uncertain: Bool, timingsJSON: String?, identifiedAt: Date, chosenSpecies: String?, recheckOf: Int64?,
        recordedBy: String? = nil
    ) throws {
        guard let source = IdentificationSource(rawValue: source) else {
            throw StoreError.invalid("identification \(id) has an unknown source")
        }
        let predictions = try JSONDecoder().decode([SpeciesPrediction].self, from: Data(predictionsJSON.utf8))
        self.init(
            id: id, uuid: uuid, plantId: plantId, photoSHA256: photoSHA256,
            identification: Identification(
                source: source, model: model, predictions: predictions, uncertain: uncertain,
                timings: StageTimingsColumn.decode(timingsJSON), date: identifiedAt
            ),
            chosenSpecies: chosenSpecies, recheckOf: recheckOf, recordedBy: recordedBy
        )
    }

    /// The predictions as the `predictions` column holds them (JSON, keys sorted).
    package func predictionsJSON() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(identification.predictions), as: UTF8.self)
    }

    /// The stage timings as the `timings` column holds them; `nil` when there are none.
    package func timingsJSON() throws -> String? {
        let timings = identification.timings.stageTimings
        return timings.isEmpty ? nil : try StageTimingsColumn.encode(timings)
    }
}

/// Stage timings as a column holds them: a JSON object of milliseconds by ``IdentificationStage`` raw value, rounded
/// to the microsecond.
package enum StageTimingsColumn {
    package static func encode(_ timings: [String: Double]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(kept(timings)), as: UTF8.self)
    }

    /// What is kept of `timings`: the known stages, rounded to the microsecond.
    package static func kept(_ timings: [String: Double]) -> [String: Double] {
        timings.stageTimings.mapValues { ($0 * 1000).rounded() / 1000 }
    }

    /// The timings in `text`; none for `NULL` (identifications filed before timings were kept) or a value that
    /// does not read as timings, which is left out rather than failing the whole history.
    package static func decode(_ text: String?) -> [String: Double] {
        guard let text, let timings = try? JSONDecoder().decode([String: Double].self, from: Data(text.utf8)) else { return [:] }
        return timings.stageTimings
    }
}
