import Foundation

/// Everything that can go wrong in the collection store, with enough detail for a person to act.
public enum StoreError: Error, Sendable, CustomStringConvertible, LocalizedError {
    /// The file at the database path is not an SQLite database (it is never overwritten).
    case notADatabase(path: String)
    /// The file is an SQLite database, but not one PlantGuide wrote.
    case foreignDatabase(path: String)
    /// The database was written by a newer PlantGuide with schema changes this version does not know.
    case newerDatabase(path: String, unknownMigrations: [String])
    /// SQLite reported damage in the database file.
    case corrupted(path: String, reason: String)
    /// The database could not be opened, read or written.
    case database(operation: String, reason: String)
    /// The database server could not be reached or refused the connection (not listening, wrong password, no such
    /// database). `location` is the database URL with any password redacted.
    case connection(location: String, reason: String)
    /// No plant has this id.
    case plantNotFound(Int64)
    /// A value was refused before it reached the database (empty name, bad interval…).
    case invalid(String)
    /// A photo could not be read, encoded or written.
    case photo(String)
    /// A file could not be read or written.
    case file(path: String, reason: String)
    /// An export archive or CSV file is malformed.
    case badArchive(String)
    /// The care guide resource is malformed (a packaging bug).
    case careGuide(String)
    /// No account has this name.
    case userNotFound(String)
    /// An account with this name (in any letter case) exists already.
    case userExists(String)
    /// The change would leave the household without an owner.
    case lastOwner(String)
    /// An operation on the collection ran outside any household's scope (a programming error in the caller; nothing
    /// was read or written).
    case noHousehold(operation: String)
    /// No household has this name.
    case householdNotFound(String)

    public var description: String {
        switch self {
        case .notADatabase(let path):
            "\(path) is not an SQLite database. PlantGuide left it untouched; move it away to start a new collection."
        case .foreignDatabase(let path):
            "\(path) is an SQLite database that PlantGuide did not create. It was left untouched; move it away to start a new collection."
        case .newerDatabase(let path, let unknown):
            "\(path) was written by a newer PlantGuide (schema \(unknown.joined(separator: ", "))). Update PlantGuide to open it."
        case .corrupted(let path, let reason):
            "The collection database \(path) is damaged: \(reason). Restore it from a backup (`plantguide backup` makes one)."
        case .database(let operation, let reason):
            "Could not \(operation): \(reason)"
        case .connection(let location, let reason):
            "Could not connect to the collection database at \(location): \(reason)"
        case .plantNotFound(let id):
            "No plant with id \(id) in the collection. `plantguide collection list` shows the ids."
        case .invalid(let message):
            message
        case .photo(let message):
            "Photo: \(message)"
        case .file(let path, let reason):
            "\(path): \(reason)"
        case .badArchive(let message):
            "Not a valid PlantGuide archive: \(message)"
        case .careGuide(let message):
            "The bundled care guide is malformed: \(message)"
        case .userNotFound(let name):
            "No account is named '\(name)'. `plantguide user list` shows the accounts."
        case .userExists(let name):
            "An account named '\(name)' exists already (names ignore letter case)."
        case .lastOwner(let name):
            "'\(name)' is the household's last owner, so it stays: make another account an owner first "
                + "(`plantguide user add NAME --role owner`)."
        case .noHousehold(let operation):
            "Could not \(operation): no household was chosen for it, so nothing was read or written (a PlantGuide bug; "
                + "please report it)."
        case .householdNotFound(let name):
            "No household is named '\(name)'. `plantguide user list` shows the households with their accounts; "
                + "`plantguide user add NAME --household '\(name)'` makes one."
        }
    }

    public var errorDescription: String? { description }
}
