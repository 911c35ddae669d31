import Foundation

/// A tab-separated file with a fixed header. Strict on purpose: the curated files are hand-reviewed, so a stray
/// space or a missing column is a mistake worth stopping for.
struct TabSeparatedFile {
    struct Row {
        let fields: [String]
        let location: CatalogLocation

        subscript(_ index: Int) -> String { fields[index] }
    }

    let rows: [Row]

    /// Reads `contents`. With `comments`, lines starting with `#` (before the header or anywhere after it)
    /// are notes for curators and are skipped; line numbers in errors still count them.
    init(contents: String, path: String, header: [String], comments: Bool = false) throws(CatalogBuildError) {
        let allLines = contents.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        let skipped = comments ? allLines.prefix(while: { $0.hasPrefix("#") }).count : 0
        let lines = allLines.dropFirst(skipped)
        guard let first = lines.first, first.split(separator: "\t", omittingEmptySubsequences: false)
            .map(String.init) == header
        else {
            throw .malformedRow(CatalogLocation(file: path, line: skipped + 1),
                                reason: "header must be '\(header.joined(separator: "\\t"))'")
        }
        var rows: [Row] = []
        for (offset, line) in lines.enumerated().dropFirst() where !line.isEmpty && !(comments && line.hasPrefix("#")) {
            let location = CatalogLocation(file: path, line: skipped + offset + 1)
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == header.count else {
                throw .malformedRow(location, reason: "expected \(header.count) tab-separated fields, found \(fields.count)")
            }
            if let padded = fields.first(where: { $0 != $0.trimmingCharacters(in: .whitespaces) }) {
                throw .malformedRow(location, reason: "field '\(padded)' has leading or trailing spaces")
            }
            rows.append(Row(fields: fields, location: location))
        }
        self.rows = rows
    }
}
