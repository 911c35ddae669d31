import Foundation
import PlantGuideCore

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
    /// The model file's weights no longer match the checksums recorded when it was written: it was changed or
    /// damaged on disk since. Re-importing the checkpoint repairs it.
    case modelFileChanged(path: String, tensor: String)
    /// No installed model has this name (`installed` lists the names there are).
    case unknownModel(name: String, installed: [String])
    /// The model to remove is the default; removing it would leave none (`others` lists the other installed models).
    case removingDefaultModel(name: String, others: [String])
    /// An on-device identification took longer than `limit` and was given up.
    case timedOut(limit: Duration)
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
        case .modelFileChanged(let path, let tensor):
            "The model file \(path) no longer matches the checksums recorded when it was imported (tensor '\(tensor)' "
                + "differs): it was changed or damaged on disk. Import the checkpoint again (plantguide model install "
                + "CHECKPOINT, or model import for a file of your own), or remove the model (plantguide model remove NAME)."
        case .unknownModel(let name, let installed):
            installed.isEmpty
                ? "No model named '\(name)': no models are installed. Install one with `plantguide model install`."
                : "No model named '\(name)'. Installed: \(installed.joined(separator: ", ")) (see `plantguide model list`)."
        case .removingDefaultModel(let name, let others):
            "\(name) is the default model. "
                + (others.isEmpty
                    ? "It is the only one installed: "
                    : "Make another the default first (plantguide model use \(others[0])), or ")
                + "pass --force to remove it anyway; identify then has no on-device model and uses Pl@ntNet only."
        case .timedOut(let limit):
            "The on-device identification took longer than \(Self.seconds(limit)) s and was given up. "
                + "Allow more time (identify --on-device-timeout, or PLANTGUIDE_ON_DEVICE_TIMEOUT for the server), "
                + "or install a smaller model (plantguide model install --arch resnet18)."
        }
    }

    public var errorDescription: String? { description }

    /// `limit` in seconds, without a fraction when it has none (10, 0.25).
    private static func seconds(_ limit: Duration) -> String {
        let value = limit.inSeconds
        return value == value.rounded() ? String(Int(value)) : String(value)
    }
}
