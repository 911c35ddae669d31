import Foundation

/// The folder where PlantGuide keeps everything it writes: models, the collection database, photos,
/// the identification cache, quota state and configuration.
///
/// Resolved, in order, from `$PLANTGUIDE_HOME`, `$XDG_DATA_HOME/plantguide`, and
/// `~/.local/share/plantguide`.
public struct DataDirectory: Sendable, Hashable {
    /// The folder itself. It may not exist yet; call ``create()`` before writing.
    public let url: URL

    /// Uses `url` as the data directory.
    public init(url: URL) {
        self.url = url.standardizedFileURL
    }

    /// Resolves the data directory from an environment (by default the process's own).
    /// - Parameters:
    ///   - environment: variables to read `PLANTGUIDE_HOME` and `XDG_DATA_HOME` from.
    ///   - home: the user's home folder, used when neither variable is set.
    public static func resolve(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        home: URL = FileManager.default.homeDirectoryForCurrentUser
    ) -> DataDirectory {
        if let explicit = environment["PLANTGUIDE_HOME"], !explicit.isEmpty {
            return DataDirectory(url: URL(fileURLWithPath: explicit, isDirectory: true))
        }
        if let xdg = environment["XDG_DATA_HOME"], !xdg.isEmpty {
            return DataDirectory(url: URL(fileURLWithPath: xdg, isDirectory: true).appendingPathComponent("plantguide"))
        }
        return DataDirectory(url: home.appendingPathComponent(".local/share/plantguide", isDirectory: true))
    }

    /// Creates the folder (and its parents) if missing, readable by its owner only.
    public func create() throws {
        try FileManager.default.createDirectory(
            at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700]
        )
    }

    /// A file or folder inside the data directory.
    public func appending(_ path: String) -> URL {
        url.appendingPathComponent(path)
    }
}
