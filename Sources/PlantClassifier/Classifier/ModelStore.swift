import Foundation
import PlantGuideCore

/// The installed models in the data directory: `models/*.pgmodel`, and `models/default` naming the one
/// `identify` uses when no `--model` is given.
public struct ModelStore: Sendable {
    public let dataDirectory: DataDirectory

    public init(dataDirectory: DataDirectory) {
        self.dataDirectory = dataDirectory
    }

    /// `<data directory>/models`.
    public var folder: URL { dataDirectory.appending("models") }

    /// Where partial downloads are kept so they can resume.
    public var downloads: URL { folder.appendingPathComponent("downloads") }

    /// `models/default`: the file name of the default model.
    public var pointer: URL { folder.appendingPathComponent("default") }

    /// The default model, if one is installed and still present.
    public func defaultModel() -> URL? {
        guard let name = try? String(contentsOf: pointer, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines),
            !name.isEmpty, !name.contains("/")
        else { return nil }
        let url = folder.appendingPathComponent(name)
        return FileManager.default.fileExists(atPath: url.path) ? url : nil
    }

    /// The file an import of `architecture` with `labels` is installed as.
    public func modelURL(architecture: ResNetArchitecture, labels: String) -> URL {
        folder.appendingPathComponent("\(architecture.rawValue)-\(labels).\(ModelFile.pathExtension)")
    }

    /// Makes the model file `url` (inside ``folder``) the default.
    public func makeDefault(_ url: URL) throws {
        do {
            try dataDirectory.create()
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data((url.lastPathComponent + "\n").utf8).write(to: pointer, options: .atomic)
        } catch {
            throw ClassifierError.unreadableFile(path: pointer.path, reason: "cannot write: \((error as NSError).localizedDescription)")
        }
    }

    /// Imports `checkpoint` into the store and makes it the default; returns the model file.
    public func install(checkpoint: URL, options: CheckpointImporter.Options) throws -> URL {
        let output = modelURL(architecture: options.architecture, labels: options.labels)
        try CheckpointImporter().importCheckpoint(at: checkpoint, options: options, to: output)
        try makeDefault(output)
        return output
    }
}
