import Foundation
import PlantStore
import PostgresNIO

extension PostgresStore {
    /// Which of these file hashes a photo of any household still names, as its file or its thumbnail.
    public func photoFilesInUse(_ sha256s: [String]) async throws(StoreError) -> Set<String> {
        guard !sha256s.isEmpty else { return [] }
        return try await withConnection("check which photo files are still used") { connection in
            let rows = try await connection.query("""
                SELECT sha256 FROM photo WHERE sha256 = ANY(\(sha256s))
                UNION SELECT thumbnailSHA256 FROM photo WHERE thumbnailSHA256 = ANY(\(sha256s))
                """, logger: self.logger)
            var used: Set<String> = []
            for try await sha in rows.decode(String.self) { used.insert(sha) }
            return used
        }
    }
}
