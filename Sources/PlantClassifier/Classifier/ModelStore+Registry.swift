import Foundation

/// One model file in the data directory, as `plantguide model list` shows it.
public struct InstalledModel: Sendable {
    /// What the user types to name it: the file name without `.pgmodel`, e.g. `resnet50-plantnet300k`.
    public var name: String
    public var url: URL
    /// Size of the file in bytes.
    public var bytes: Int
    /// Whether `identify` uses it when no `--model` is given.
    public var isDefault: Bool
    /// Its header; `nil` when the file cannot be read as a model (then ``problem`` says why).
    public var manifest: ModelManifest?
    /// Why the header cannot be read, for a damaged or foreign file.
    public var problem: String?
}

extension ModelStore {
    /// The installed models, by name; an empty list when there are none (or no models folder yet). Only each
    /// file's header is read.
    public func installedModels() -> [InstalledModel] {
        let files = (try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: [.fileSizeKey])) ?? []
        let defaultName = defaultModel()?.lastPathComponent
        return files
            .filter { $0.pathExtension == ModelFile.pathExtension && !$0.lastPathComponent.hasPrefix(".") }
            .map { url in
                var model = InstalledModel(
                    name: url.deletingPathExtension().lastPathComponent, url: url,
                    bytes: (try? url.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? 0,
                    isDefault: url.lastPathComponent == defaultName
                )
                do {
                    model.manifest = try ModelFile.manifest(at: url)
                } catch {
                    model.problem = "\(error)"
                }
                return model
            }
            .sorted { $0.name < $1.name }
    }

    /// The installed model called `name` (its ``InstalledModel/name``, with or without `.pgmodel`).
    /// - Throws: ``ClassifierError/unknownModel(name:installed:)`` listing the installed names.
    public func model(named name: String) throws -> InstalledModel {
        let models = installedModels()
        let wanted = name.hasSuffix(".\(ModelFile.pathExtension)") ? String(name.dropLast(ModelFile.pathExtension.count + 1)) : name
        guard let model = models.first(where: { $0.name == wanted }) else {
            throw ClassifierError.unknownModel(name: name, installed: models.map(\.name))
        }
        return model
    }

    /// Makes the installed model `name` the default, after checking that its weights are intact (so `identify`
    /// does not find out later).
    @discardableResult
    public func use(_ name: String) throws -> InstalledModel {
        var model = try self.model(named: name)
        _ = try ModelFile.verify(at: model.url)
        try makeDefault(model.url)
        model.isDefault = true
        return model
    }

    /// Deletes the installed model `name` and returns what it was.
    ///
    /// The default model is kept unless `evenIfDefault`: removing it leaves no default (the pointer goes too), so
    /// `identify` has no on-device model until `use` names another.
    /// - Throws: ``ClassifierError/removingDefaultModel(name:others:)`` for the default without `evenIfDefault`.
    @discardableResult
    public func remove(_ name: String, evenIfDefault: Bool = false) throws -> InstalledModel {
        let model = try self.model(named: name)
        if model.isDefault, !evenIfDefault {
            throw ClassifierError.removingDefaultModel(
                name: model.name, others: installedModels().map(\.name).filter { $0 != model.name }
            )
        }
        do {
            try FileManager.default.removeItem(at: model.url)
            // The layer plan measured for it, if any (see `model info --plan`).
            try? FileManager.default.removeItem(at: LayerPlan.url(for: model.url))
            if model.isDefault { try FileManager.default.removeItem(at: pointer) }
        } catch {
            throw ClassifierError.unreadableFile(path: model.url.path, reason: "cannot remove: \((error as NSError).localizedDescription)")
        }
        return model
    }
}
