import Foundation
import PlantGuideCore

/// What one output class of a model means.
public struct ClassLabel: Sendable, Hashable {
    /// Pl@ntNet species id, for PlantNet-300K labels.
    public var speciesId: String?
    /// Genus and epithet without authorship, e.g. `Lactuca virosa`; the key for merging classes.
    public var binomial: String
    /// Authorship as written in the label file, e.g. `L.`; `nil` when there is none.
    public var authorship: String?
}

/// The names of a model's output classes.
public struct LabelSet: Sendable {
    /// `plantnet300k` or `index`.
    public let name: String
    /// One label per class index.
    public let labels: [ClassLabel]

    /// Label sets PlantGuide knows by name.
    public static let knownNames = ["plantnet300k", "index"]

    /// The label set called `name` for a model with `classes` outputs.
    public static func named(_ name: String, classes: Int) throws -> LabelSet {
        switch name {
        case "plantnet300k":
            let set = try plantNet300K()
            guard set.labels.count == classes else {
                throw ClassifierError.labelMismatch(
                    "PlantNet-300K has \(set.labels.count) classes but the model has \(classes) (use --labels index)"
                )
            }
            return set
        case "index":
            return LabelSet(name: "index", labels: (0..<classes).map { ClassLabel(speciesId: nil, binomial: "class \($0)", authorship: nil) })
        default:
            throw ClassifierError.labelMismatch("unknown label set '\(name)' (known: \(knownNames.joined(separator: ", ")))")
        }
    }

    /// The 1,081 PlantNet-300K classes, bundled: class index → species id (sorted ids) → name.
    public static func plantNet300K() throws -> LabelSet {
        func load(_ resource: String) throws -> [String: String] {
            guard let url = Bundle.module.url(forResource: resource, withExtension: "json") else {
                throw ClassifierError.labelMismatch("the bundled \(resource).json is missing")
            }
            do {
                return try JSONDecoder().decode([String: String].self, from: Data(contentsOf: url))
            } catch {
                throw ClassifierError.labelMismatch("the bundled \(resource).json is unreadable: \(error)")
            }
        }
        let classes = try load("class_idx_to_species_id")
        let names = try load("plantnet300K_species_id_2_name")
        var labels: [ClassLabel] = []
        for index in 0..<classes.count {
            guard let species = classes[String(index)], let fullName = names[species] else {
                throw ClassifierError.labelMismatch("class \(index) has no species name")
            }
            let parsed = ScientificName(parsing: fullName)
            let binomial = parsed.binomial
            let rest = fullName.hasPrefix(binomial)
                ? fullName.dropFirst(binomial.count).trimmingCharacters(in: .whitespaces) : ""
            labels.append(ClassLabel(speciesId: species, binomial: binomial, authorship: rest.isEmpty ? nil : rest))
        }
        return LabelSet(name: "plantnet300k", labels: labels)
    }

    /// Class indices grouped by binomial, in order of first appearance: PlantNet-300K lists 57 species
    /// under several ids, and a person wants one answer per species.
    public var groups: [[Int]] {
        var order: [String] = []
        var members: [String: [Int]] = [:]
        for (index, label) in labels.enumerated() {
            if members[label.binomial] == nil { order.append(label.binomial) }
            members[label.binomial, default: []].append(index)
        }
        return order.compactMap { members[$0] }
    }
}
