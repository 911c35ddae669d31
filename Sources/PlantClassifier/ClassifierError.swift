import Foundation

/// Everything that can go wrong while importing a checkpoint, loading a model or classifying.
public enum ClassifierError: Error, Sendable, Equatable {
    /// The file could not be read (missing, unreadable).
    case unreadableFile(path: String, reason: String)
    /// The checkpoint is not a zip archive as written by `torch.save` (PyTorch ≥ 1.6).
    case notACheckpoint(String)
    /// The zip archive is damaged or uses a feature PlantGuide does not read.
    case corruptArchive(String)
    /// The pickle asked for a Python global that a state dict never needs; loading it could run code.
    case forbiddenGlobal(module: String, name: String)
    /// The pickle stream is malformed or uses an opcode PlantGuide does not read.
    case corruptPickle(String)
    /// The checkpoint holds no state dict PlantGuide recognises.
    case noStateDict(String)
    /// A tensor the architecture needs is absent.
    case missingTensor(String)
    /// A tensor has the wrong shape for the architecture.
    case shapeMismatch(name: String, expected: [Int], found: [Int])
    /// A tensor uses a storage type PlantGuide cannot convert.
    case unsupportedTensor(name: String, reason: String)
    /// The number of classes does not fit the chosen label set.
    case labelMismatch(String)
    /// A PlantGuide model file is damaged, truncated, or from an unknown format version.
    case invalidModelFile(String)
    /// The input tensor has the wrong number of values for the model.
    case badInput(expected: Int, found: Int)
    /// The convolution library failed while running the model.
    case engineFailed(String)
    /// No model is installed and none was given.
    case noModelInstalled(dataDirectory: String)
    /// A download failed.
    case downloadFailed(url: String, reason: String)
}

extension ClassifierError: LocalizedError, CustomStringConvertible {
    public var description: String {
        switch self {
        case .unreadableFile(let path, let reason):
            "Cannot read \(path): \(reason)"
        case .notACheckpoint(let detail):
            "Not a PyTorch checkpoint (expected a torch.save zip archive): \(detail)"
        case .corruptArchive(let detail):
            "The checkpoint archive is damaged: \(detail)"
        case .forbiddenGlobal(let module, let name):
            "Refused to load the checkpoint: its pickle references the Python global '\(module).\(name)', "
                + "which a state dict never needs. Loading it could run arbitrary code."
        case .corruptPickle(let detail):
            "The checkpoint's pickle data is malformed: \(detail)"
        case .noStateDict(let detail):
            "No model state dict found in the checkpoint: \(detail)"
        case .missingTensor(let name):
            "The checkpoint lacks the tensor '\(name)' required by the architecture (wrong --arch?)."
        case .shapeMismatch(let name, let expected, let found):
            "Tensor '\(name)' has shape \(found), but the architecture needs \(expected) (wrong --arch?)."
        case .unsupportedTensor(let name, let reason):
            "Tensor '\(name)' cannot be used: \(reason)"
        case .labelMismatch(let detail):
            "Labels do not fit the model: \(detail)"
        case .invalidModelFile(let detail):
            "Not a valid PlantGuide model file: \(detail)"
        case .badInput(let expected, let found):
            "The input has \(found) values; the model needs \(expected)."
        case .engineFailed(let detail):
            "The on-device model could not run: \(detail)"
        case .noModelInstalled(let directory):
            "No on-device model is installed (looked in \(directory)/models)."
        case .downloadFailed(let url, let reason):
            "Download of \(url) failed: \(reason)"
        }
    }

    public var errorDescription: String? { description }
}
