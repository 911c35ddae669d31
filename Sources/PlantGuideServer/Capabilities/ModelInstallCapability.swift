import Foundation
import PlantClassifier

/// Installing on-device models from the web app: the choices, a download's progress, cancel and remove.
public struct ModelInstallCapability: Sendable {
    /// One model the server can download.
    public struct Choice: Sendable, Hashable {
        /// `resnet18` or `resnet50`.
        public var architecture: String
        /// "ResNet50".
        public var label: String
        /// What it costs and gives, in one sentence: download size, speed, memory.
        public var summary: String
        /// Whether it is installed already.
        public var installed: Bool
        /// Bytes of an earlier download kept on disk (stopped, or cut by a restart): downloading resumes after them.
        public var partialBytes: Int64?

        public init(architecture: String, label: String, summary: String, installed: Bool, partialBytes: Int64? = nil) {
            self.architecture = architecture
            self.label = label
            self.summary = summary
            self.installed = installed
            self.partialBytes = partialBytes
        }
    }

    /// The models on offer.
    public var choices: @Sendable () -> [Choice]
    /// The install running now, or the last one's outcome.
    public var status: @Sendable () -> ModelInstallStatus
    /// Starts installing `architecture` unless an install runs (then its status is returned: one runs at a time).
    public var start: @Sendable (_ architecture: String) throws -> ModelInstallStatus
    /// Stops the running download; what arrived is kept, so starting again resumes.
    public var cancel: @Sendable () -> Void
    /// Removes an installed model file (by file name) that is not the default.
    public var remove: @Sendable (_ file: String) throws -> Void
    /// Where an uploaded checkpoint is written while it arrives (a new file each time).
    public var uploadFile: @Sendable () -> URL = { FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString) }
    /// Imports an uploaded checkpoint (`name` is the file name the browser gave, for the architecture) and makes it
    /// the default once whole and checked; the file is removed either way. Returns the installed model's file name.
    public var installUpload: @Sendable (_ file: URL, _ name: String) async throws -> String = { file, _ in
        try? FileManager.default.removeItem(at: file)
        throw ServerError.capabilityMissing("This server cannot install uploaded models.")
    }

    public init(
        choices: @escaping @Sendable () -> [Choice], status: @escaping @Sendable () -> ModelInstallStatus,
        start: @escaping @Sendable (_ architecture: String) throws -> ModelInstallStatus, cancel: @escaping @Sendable () -> Void,
        remove: @escaping @Sendable (_ file: String) throws -> Void
    ) {
        self.choices = choices
        self.status = status
        self.start = start
        self.cancel = cancel
        self.remove = remove
    }
}

/// Where a model install stands, as the Settings page and `GET /api/model/install` show it.
public struct ModelInstallStatus: Sendable, Encodable, Equatable {
    /// The stages of an install.
    public enum State: String, Sendable, Encodable, Hashable {
        /// Nothing has run since the server started.
        case idle
        case downloading
        /// The download is complete; its checksum is being checked.
        case checking
        /// The checkpoint is being imported.
        case importing
        /// The model is installed and in use.
        case installed
        case failed
        /// Stopped by a person; starting again resumes.
        case cancelled
    }

    public var state: State
    /// The architecture being (or last) installed.
    public var architecture: String?
    /// Bytes so far, size, speed and time left.
    public var progress = DownloadProgress()
    /// What happened, in a sentence (the error of a failed install, the checksum of a finished one).
    public var message: String?

    public init(state: State, architecture: String? = nil, message: String? = nil) {
        self.state = state
        self.architecture = architecture
        self.message = message
    }

    /// Whether an install is under way.
    public var isRunning: Bool { [.downloading, .checking, .importing].contains(state) }

    /// Where it stands in one sentence, as the page and its progress updates show it: "Downloading ResNet50: 40.1 of
    /// 98.4 MiB (40 %), 17.6 MiB/s, about 3 s left."
    public var text: String {
        let name = (architecture ?? "the model").replacingOccurrences(of: "resnet", with: "ResNet")
        switch state {
        case .idle: return ""
        case .downloading: return "Downloading \(name): \(progress.summary())."
        case .checking: return "Checking the download of \(name) against its published checksum…"
        case .importing: return "Importing \(name) (checking the archive and the network it holds)…"
        case .installed, .failed, .cancelled: return message ?? ""
        }
    }

    private enum CodingKeys: String, CodingKey {
        case state, architecture, receivedBytes, totalBytes, bytesPerSecond, secondsLeft, message, percent, text
    }

    /// The fields, the percentage and the sentence (`GET /api/model/install`).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(state, forKey: .state)
        try container.encode(architecture, forKey: .architecture)
        try container.encode(progress.received, forKey: .receivedBytes)
        try container.encode(progress.total, forKey: .totalBytes)
        try container.encode(progress.bytesPerSecond, forKey: .bytesPerSecond)
        try container.encode(progress.secondsLeft, forKey: .secondsLeft)
        try container.encode(message, forKey: .message)
        try container.encode(progress.percent, forKey: .percent)
        try container.encode(text, forKey: .text)
    }
}
