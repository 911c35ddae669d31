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

    init(contents: String, path: String, header: [String]) throws(CatalogBuildError) {
        let lines = contents.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        guard let first = lines.first, first.split(separator: "\t", omittingEmptySubsequences: false)
            .map(String.init) == header
        else {
            throw .malformedRow(CatalogLocation(file: path, line: 1),
                                reason: "header must be '\(header.joined(separator: "\\t"))'")
        }
        var rows: [Row] = []
        for (offset, line) in lines.enumerated().dropFirst() where !line.isEmpty {
            let location = CatalogLocation(file: path, line: offset + 1)
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
