import Foundation
import PlantGuideCore

/// Installs a PlantNet-300K model from a ``ModelSource``: downloads the checkpoint (resuming a partial download), checks
/// it against the size and checksum Zenodo publishes, imports it (which checks that the archive is whole and that the
/// network fits the 1,081 classes) and only then makes it the default. One install per file at a time: a second one
/// waits for the first, showing its progress, and then reports the model it installed.
public struct ModelInstaller: Sendable {
    /// How the downloaded file compared with the checksum the record publishes.
    public enum ChecksumCheck: Sendable, Equatable {
        /// The record's MD5 and size match (enforced for the official record).
        case matches(md5: String)
        /// A mirror's file differs from the record's (shown, not enforced: a mirror may hold other weights).
        case differs(published: String, actual: String)
        /// The record could not be read or names no checksum for the file; the archive was still imported and checked.
        case unpublished(actual: String, why: String)
        /// Another install did the download meanwhile.
        case installedByAnother
    }

    /// What an install did.
    public struct Report: Sendable {
        /// The installed model file, now the default.
        public var model: URL
        public var checksum: ChecksumCheck
        /// Where the checkpoint came from.
        public var url: URL
    }

    /// What an install reports while it runs.
    public enum Event: Sendable {
        /// Bytes of the checkpoint on disk and its size when known.
        case downloading(received: Int64, total: Int64?)
        /// Another process is installing the same file; its bytes on disk so far.
        case waitingForAnother(received: Int64)
        /// The download is complete; its checksum is being checked.
        case checking
        /// The checkpoint is being imported.
        case importing
    }

    public let store: ModelStore
    public let source: ModelSource
    private let downloader: ModelDownloader
    private let recordTimeout: Duration

    public init(store: ModelStore, source: ModelSource, downloader: ModelDownloader = ModelDownloader(), recordTimeout: Duration = .seconds(20)) {
        self.store = store
        self.source = source
        self.downloader = downloader
        self.recordTimeout = recordTimeout
    }

    /// Downloads, checks, imports and makes the default the model for `architecture`. On failure the reason is also
    /// kept in the data directory (``ModelStore/installProblem()``) for the server to show; success clears it.
    public func install(
        architecture: ResNetArchitecture, precision: WeightPrecision = .float16,
        events: @escaping @Sendable (Event) -> Void = { _ in }
    ) async throws -> Report {
        let url = source.url(for: architecture)
        do {
            let report = try await run(architecture: architecture, precision: precision, url: url, events: events)
            store.clearInstallProblem()
            return report
        } catch {
            store.recordInstallProblem(InstallProblem(url: url.absoluteString, reason: "\(error)"))
            throw error
        }
    }

    private func run(
        architecture: ResNetArchitecture, precision: WeightPrecision, url: URL, events: @escaping @Sendable (Event) -> Void
    ) async throws -> Report {
        let name = ModelSource.fileName(for: architecture)
        let checkpoint = store.downloads.appendingPathComponent(name)
        let output = store.modelURL(architecture: architecture, labels: "plantnet300k")
        let lockURL = checkpoint.appendingPathExtension("lock")
        let started = Date()
        var lock = FileLock.attempt(url: lockURL)
        if lock == nil {
            // Another install of the same file runs: show its progress until it ends, then use what it installed.
            while lock == nil {
                events(.waitingForAnother(received: ModelDownloader.bytesKept(for: checkpoint)))
                try await Task.sleep(for: .milliseconds(500))
                lock = FileLock.attempt(url: lockURL)
            }
            let modified = (try? FileManager.default.attributesOfItem(atPath: output.path)[.modificationDate] as? Date) ?? .distantPast
            if modified >= started.addingTimeInterval(-1), (try? ModelFile.manifest(at: output)) != nil {
                lock?.unlock()
                try store.makeDefault(output)
                return Report(model: output, checksum: .installedByAnother, url: url)
            }
        }
        defer { lock?.unlock() }

        // The record's size and checksum: enforced for the official record, shown for a mirror.
        var published: PublishedFile?
        var unpublishedWhy = "the record names no checksum for \(name)"
        do {
            published = try await PublishedFile.fetchRecord(source.recordURL, timeout: recordTimeout)[name]
        } catch {
            unpublishedWhy = "the record's checksums could not be read (\(error))"
        }
        try await downloader.download(
            from: url, to: checkpoint, expectedSize: source.isOfficial ? published?.size : nil,
            progress: { received, total in events(.downloading(received: received, total: total)) }
        )
        events(.checking)
        let actual = try PublishedFile.md5(of: checkpoint)
        let check: ChecksumCheck
        switch (published?.md5, source.isOfficial) {
        case (let md5?, true) where md5 != actual:
            try? FileManager.default.removeItem(at: checkpoint)
            throw ClassifierError.downloadFailed(
                url: url.absoluteString,
                reason: "the file's MD5 is \(actual) but Zenodo publishes \(md5); it was removed, run the same command again"
            )
        case (let md5?, _) where md5 == actual: check = .matches(md5: md5)
        case (let md5?, _): check = .differs(published: md5, actual: actual)
        case (nil, _): check = .unpublished(actual: actual, why: unpublishedWhy)
        }
        events(.importing)
        let options = CheckpointImporter.Options(architecture: architecture, precision: precision, source: url.absoluteString)
        do {
            let model = try store.install(checkpoint: checkpoint, options: options)
            try? FileManager.default.removeItem(at: checkpoint)
            return Report(model: model, checksum: check, url: url)
        } catch {
            // Not a usable checkpoint: keeping it would only make the next run resume into the same refusal.
            try? FileManager.default.removeItem(at: checkpoint)
            throw error
        }
    }
}

/// Why the last model install failed, kept in the data directory for the server's pages.
public struct InstallProblem: Codable, Sendable, Equatable {
    /// Where the checkpoint was to come from.
    public var url: String
    /// The error, in words.
    public var reason: String
    public var at: Date

    public init(url: String, reason: String, at: Date = Date()) {
        self.url = url
        self.reason = reason
        self.at = at
    }
}

extension ModelStore {
    /// `models/install-problem.json`: why the last install failed, until one succeeds.
    public var installProblemURL: URL { folder.appendingPathComponent("install-problem.json") }

    /// Why the last install failed, if it did and none has succeeded since.
    public func installProblem() -> InstallProblem? {
        guard let data = try? Data(contentsOf: installProblemURL) else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try? decoder.decode(InstallProblem.self, from: data)
    }

    /// Keeps `problem` for ``installProblem()``.
    public func recordInstallProblem(_ problem: InstallProblem) {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        guard let data = try? encoder.encode(problem) else { return }
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try? data.write(to: installProblemURL, options: .atomic)
    }

    /// Forgets the last failure (an install succeeded).
    public func clearInstallProblem() {
        try? FileManager.default.removeItem(at: installProblemURL)
    }
}
