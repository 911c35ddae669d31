import Foundation
import GRDB
import PlantStore

extension CollectionDatabase {
    /// Which of these file hashes a photo of any household still names, as its file or its thumbnail.
    public func photoFilesInUse(_ sha256s: [String]) throws(StoreError) -> Set<String> {
        guard !sha256s.isEmpty else { return [] }
        return try read("check which photo files are still used") { db in
            var used: Set<String> = []
            // In slices, within SQLite's limit on bound values.
            for start in stride(from: 0, to: sha256s.count, by: 400) {
                let slice = Array(sha256s[start..<min(start + 400, sha256s.count)])
                let marks = databaseQuestionMarks(count: slice.count)
                let rows = try String.fetchAll(
                    db, sql: """
                        SELECT sha256 FROM photo WHERE sha256 IN (\(marks))
                        UNION SELECT thumbnailSHA256 FROM photo WHERE thumbnailSHA256 IN (\(marks))
                        """,
                    arguments: StatementArguments(slice + slice)
                )
                used.formUnion(rows)
            }
            return used
        }
    }
}
