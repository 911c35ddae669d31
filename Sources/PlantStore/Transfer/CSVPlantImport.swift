import Foundation
import PlantGuideCore

/// The outcome of importing a CSV list of plant names.
public struct CSVImportReport: Sendable, Hashable, Codable {
    /// A row whose name the catalog does not know; it was not imported.
    public struct Unmatched: Sendable, Hashable, Codable {
        /// 1-based line number in the file.
        public var line: Int
        public var name: String
    }

    public var added: [Plant] = []
    /// Rows skipped because the same plant (species, nickname and room) is already in the collection.
    public var alreadyPresent = 0
    public var unmatched: [Unmatched] = []
}

/// Imports a simple CSV of plant names, matching each against the catalog.
///
/// Columns: `name` and, optionally, `nickname`, `room`, `notes`. A first row naming these columns is
/// a header; without one the columns are taken in that order. Quoted fields (RFC 4180) are allowed.
/// All matched rows are added in one transaction; unmatched rows are reported, not added.
public struct CSVPlantImport: Sendable {
    public let collection: PlantCollection

    /// An importer into `collection`.
    public init(collection: PlantCollection) {
        self.collection = collection
    }

    /// Imports `text` (the file's content).
    public func run(_ text: String) async throws(StoreError) -> CSVImportReport {
        let rows = try Self.parse(text)
        guard let first = rows.first else { throw .badArchive("the CSV file is empty") }
        let known = ["name", "nickname", "room", "notes"]
        let lowered = first.fields.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        let hasHeader = lowered.contains("name")
        let columns = hasHeader ? lowered : Array(known.prefix(first.fields.count))
        guard columns.contains("name") else { throw .badArchive("the CSV file has no name column") }
        var report = CSVImportReport()
        var additions: [(NewPlant, CareProfile)] = []
        for row in rows.dropFirst(hasHeader ? 1 : 0) {
            var values: [String: String] = [:]
            for (column, value) in zip(columns, row.fields) where known.contains(column) {
                let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
                if !trimmed.isEmpty { values[column] = trimmed }
            }
            guard let name = values["name"] else { continue }
            guard let match = collection.lookup(name) else {
                report.unmatched.append(.init(line: row.line, name: name))
                continue
            }
            additions.append((
                NewPlant(name: name, species: match.scientificName, nickname: values["nickname"], room: values["room"], notes: values["notes"],
                         confirmation: SpeciesConfirmation(species: match.scientificName, source: .name)),
                collection.careGuide.profile(for: match, name: name)
            ))
        }
        let result = try await collection.store.addPlantsSkippingDuplicates(additions, now: collection.now())
        report.added = result.added
        report.alreadyPresent = result.skipped
        return report
    }

    /// Splits CSV text into rows of fields, with the line each row starts on.
    static func parse(_ text: String) throws(StoreError) -> [(line: Int, fields: [String])] {
        var rows: [(line: Int, fields: [String])] = []
        var fields: [String] = [], field = "", inQuotes = false, line = 1, rowStart = 1
        var characters = text.makeIterator()
        var pending: Character? = nil
        func endRow() {
            fields.append(field)
            if !(fields.count == 1 && fields[0].trimmingCharacters(in: .whitespaces).isEmpty) {
                rows.append((rowStart, fields))
            }
            fields = []
            field = ""
        }
        while let character = pending ?? characters.next() {
            pending = nil
            if inQuotes {
                if character == "\"" {
                    let next = characters.next()
                    if next == "\"" { field.append("\"") } else { inQuotes = false; pending = next }
                } else {
                    if character == "\n" || character == "\r\n" { line += 1 }
                    field.append(character)
                }
                continue
            }
            switch character {
            case "\"" where field.isEmpty: inQuotes = true
            case ",": fields.append(field); field = ""
            case "\n", "\r\n", "\r":
                endRow()
                line += 1
                rowStart = line
            default: field.append(character)
            }
        }
        if inQuotes { throw .badArchive("line \(rowStart): a quoted field is not closed") }
        if !field.isEmpty || !fields.isEmpty { endRow() }
        return rows
    }
}
