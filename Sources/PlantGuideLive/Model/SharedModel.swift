import Foundation
import PlantClassifier
import PlantGuideCore
import Synchronization

/// The installed default on-device model, loaded once and shared by everything that runs it in one process
/// (identification, re-scoring, the collection's photo embeddings), and loaded again only when the default changes on
/// disk: another model chosen, or the file replaced.
public final class SharedModel: Sendable {
    /// A loaded model and the file it came from.
    public struct Loaded: Sendable {
        /// The model file.
        public let url: URL
        /// The network, ready to run.
        public let classifier: Classifier
        /// Embeds photos with this model (for recognising the collection's own plants).
        public var embedder: PhotoEmbedder { .live(classifier: classifier) }
    }

    /// The model in use.
    public enum State: Sendable {
        /// No model is installed.
        case none
        /// The default model, loaded.
        case loaded(Loaded)
        /// The default model could not be loaded; why.
        case failed(url: URL, reason: String)
    }

    /// What tells one model file from another, or from itself rewritten.
    private struct Fingerprint: Equatable, Sendable {
        var path: String
        var size: Int?
        var modified: Date?
        var inode: Int?
    }

    private let directory: DataDirectory
    private let threads: Int
    private let slot = Mutex<(fingerprint: Fingerprint?, state: State)>((nil, .none))
    /// One load at a time: a second caller waits and then finds the model loaded.
    private let loading = Mutex<Void>(())

    /// A model of `directory`, run with `threads` threads per pass; nothing is loaded until ``refresh()``.
    public init(directory: DataDirectory, threads: Int) {
        self.directory = directory
        self.threads = threads
    }

    /// The model in use now.
    public var state: State { slot.withLock { $0.state } }

    /// The model in use, when one is loaded.
    public var loaded: Loaded? {
        if case .loaded(let loaded) = state { loaded } else { nil }
    }

    /// Loads the default model when it is not the one in use (another file, or the same file rewritten) or failed to load
    /// last time, or forgets the one in use when no default is installed any more. Cheap when nothing changed: one
    /// `stat`. A load takes the calling thread for as long as it runs (about a second for ResNet50).
    /// - Returns: whether the model in use changed.
    @discardableResult
    public func refresh() -> Bool {
        loading.withLock { _ in
            let url = ModelStore(dataDirectory: directory).defaultModel()
            let fingerprint = url.map(Self.fingerprint)
            // The same file as before is loaded again only when it failed to load (a passing cause, such as memory).
            let (previous, failed) = slot.withLock { slot in
                (slot.fingerprint, { if case .failed = slot.state { true } else { false } }())
            }
            guard fingerprint != previous || failed else { return false }
            let state: State
            if let url {
                do {
                    state = .loaded(Loaded(url: url, classifier: try Classifier(contentsOf: url, threads: threads)))
                } catch {
                    state = .failed(url: url, reason: "\(error)")
                }
            } else {
                state = .none
            }
            slot.withLock { $0 = (fingerprint, state) }
            return true
        }
    }

    private static func fingerprint(_ url: URL) -> Fingerprint {
        let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
        return Fingerprint(
            path: url.standardizedFileURL.path, size: (attributes?[.size] as? NSNumber)?.intValue,
            modified: attributes?[.modificationDate] as? Date,
            inode: (attributes?[.systemFileNumber] as? NSNumber)?.intValue
        )
    }
}
