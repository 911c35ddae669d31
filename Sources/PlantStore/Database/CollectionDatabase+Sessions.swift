import Foundation
import GRDB
import PlantGuideCore

extension CollectionDatabase {
    /// Remembers a web log-in until `expiresAt`, by the SHA-256 of its session id (the id itself is never stored).
    /// Expired log-ins are dropped in the same transaction.
    public func saveLoginSession(idHash: String, expiresAt: Date, now: Date) throws(StoreError) {
        try write("remember the log-in") { db in
            try db.execute(sql: "DELETE FROM loginSession WHERE expiresAt <= ?", arguments: [now])
            try db.execute(
                sql: "INSERT OR REPLACE INTO loginSession (idHash, expiresAt) VALUES (?, ?)", arguments: [idHash, expiresAt]
            )
        }
    }

    /// When a remembered log-in expires; `nil` when there is none.
    public func loginSessionExpiry(idHash: String) throws(StoreError) -> Date? {
        try read("read the log-in") { db in
            try Date.fetchOne(db, sql: "SELECT expiresAt FROM loginSession WHERE idHash = ?", arguments: [idHash])
        }
    }

    /// Forgets a log-in (log-out).
    public func deleteLoginSession(idHash: String) throws(StoreError) {
        try write("forget the log-in") { db in
            try db.execute(sql: "DELETE FROM loginSession WHERE idHash = ?", arguments: [idHash])
        }
    }
}
