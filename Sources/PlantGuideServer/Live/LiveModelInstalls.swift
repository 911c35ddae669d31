import Foundation
import PlantClassifier
import PlantGuideCore
import Synchronization

/// Model installs from the web app, one at a time, on ``ModelInstaller`` (the same download, resume, checksum and
/// import as `plantguide model install`). The state lives in memory, so a page reload shows the running download; a
/// download stopped by a restart resumes from its partial file when started again.
enum LiveModelInstalls {
    /// What each model costs, measured on a 2-core x86-64 machine (docs/benchmarks.md).
    static let offered: [(ResNetArchitecture, String, String)] = [
        (.resnet50, "ResNet50", "About 100 MB to download; 35–55 ms per photo on 2 cores and about 140 MiB while identifying: the more accurate (the default)"),
        (.resnet18, "ResNet18", "About 45 MB to download; 15–25 ms per photo on 2 cores and about 130 MiB while identifying: faster, less accurate"),
    ]

    /// The install job, shared by the capability's closures and the running task.
    private final class JobBox: Sendable {
        let state = Mutex(Job())
    }

    private struct Job {
        var status = ModelInstallStatus(state: .idle)
        var task: Task<Void, Never>?
    }

    /// - Parameters:
    ///   - installed: called after a model was installed and made the default, to put it in use.
    static func make(
        directory: DataDirectory, environment: [String: String], installed: @escaping @Sendable () -> Void,
        log: @escaping @Sendable (String) -> Void
    ) -> ModelInstallCapability {
        let store = ModelStore(dataDirectory: directory)
        let job = JobBox()
        let update = { @Sendable (change: (inout Job) -> Void) in job.state.withLock { change(&$0) } }

        var capability = ModelInstallCapability(
            choices: {
                let files = Set(store.installedModels().map(\.url.lastPathComponent))
                return offered.map { architecture, label, summary in
                    let kept = ModelDownloader.bytesKept(for: store.downloads.appendingPathComponent(ModelSource.fileName(for: architecture)))
                    return ModelInstallCapability.Choice(
                        architecture: architecture.rawValue, label: label, summary: summary,
                        installed: files.contains(store.modelURL(architecture: architecture, labels: "plantnet300k").lastPathComponent),
                        partialBytes: kept > 0 ? kept : nil
                    )
                }
            },
            status: { job.state.withLock { $0.status } },
            start: { name in
                guard let architecture = ResNetArchitecture(name: name), offered.contains(where: { $0.0 == architecture }) else {
                    throw ServerError.badRequest("Choose ResNet18 or ResNet50.")
                }
                let source: ModelSource
                do { source = try ModelSource.fromEnvironment(environment) } catch {
                    throw ServerError.failed("\(error)")
                }
                let (status, fresh) = job.state.withLock { current -> (ModelInstallStatus, Bool) in
                    if current.status.isRunning { return (current.status, false) }
                    current = Job(status: ModelInstallStatus(state: .downloading, architecture: architecture.rawValue))
                    return (current.status, true)
                }
                guard fresh else { return status }
                log("installing the \(architecture.rawValue) model from \(source.description)")
                let task = Task.detached {
                    let installer = ModelInstaller(store: store, source: source)
                    do {
                        let report = try await installer.install(architecture: architecture) { event in
                            update { job in apply(event, to: &job) }
                        }
                        // Loaded before the status says so: "installed" means in use.
                        log("installed \(report.model.lastPathComponent); loading it")
                        installed()
                        update { job in
                            job.status.state = .installed
                            job.status.progress.finish()
                            job.status.message = describe(report.checksum)
                        }
                    } catch {
                        let cancelled = error is CancellationError || Task.isCancelled
                        update { job in
                            job.status.state = cancelled ? .cancelled : .failed
                            job.status.progress.finish()
                            job.status.message = cancelled ? "Stopped; what arrived is kept, so downloading again resumes." : "\(error)"
                        }
                        log(cancelled ? "model install cancelled" : "model install failed: \(error)")
                    }
                }
                job.state.withLock { $0.task = task }
                return status
            },
            cancel: { job.state.withLock { $0.task?.cancel() } },
            remove: { name in
                do {
                    try store.remove(name)
                } catch let error as ClassifierError {
                    throw ServerError.badRequest(
                        error.description.hasPrefix("No model") ? "There is no installed model “\(name)”."
                            : "“\(name)” is the model in use; choose another one first."
                    )
                }
            }
        )
        capability.uploadFile = { store.downloads.appendingPathComponent("upload-\(UUID().uuidString).part") }
        capability.installUpload = { file, name in
            defer { try? FileManager.default.removeItem(at: file) }
            guard !job.state.withLock({ $0.status.isRunning }) else {
                throw ServerError.badRequest("A model download is running; upload when it has ended.")
            }
            let architecture = ResNetArchitecture.guess(fromFileName: name) ?? .resnet50
            let options = CheckpointImporter.Options(architecture: architecture, precision: .float16, source: "uploaded \(name)")
            let model: URL
            do {
                model = try await WorkPool.shared.run { try store.install(checkpoint: file, options: options) }
            } catch let error as ClassifierError {
                throw ServerError.badRequest("“\(name)” was not installed: \(error)")
            }
            log("installed \(model.lastPathComponent) from an upload; loading it")
            installed()
            store.clearInstallProblem()
            return model.lastPathComponent
        }
        return capability
    }

    private static func apply(_ event: ModelInstaller.Event, to job: inout Job) {
        switch event {
        case .downloading(let received, let total):
            record(received, total: total, in: &job)
        case .waitingForAnother(let received):
            record(received, total: job.status.progress.total, in: &job)
        case .checking:
            job.status.state = .checking
            job.status.progress.finish()
        case .importing:
            job.status.state = .importing
        }
    }

    private static func record(_ received: Int64, total: Int64?, in job: inout Job) {
        job.status.state = .downloading
        job.status.progress.update(received: received, total: total)
    }

    private static func describe(_ check: ModelInstaller.ChecksumCheck) -> String {
        switch check {
        case .matches(let md5): "Installed and in use. MD5 \(md5) and size as the Zenodo record publishes."
        case .differs(let published, let actual):
            "Installed and in use. This file's MD5 is \(actual); Zenodo publishes \(published) for the same name (not enforced for a mirror)."
        case .unpublished(let actual, let why):
            why.hasPrefix("the record's checksums could not be read")
                ? "Installed and in use. MD5 \(actual); Zenodo's record could not be read, so it was not compared."
                : "Installed and in use. MD5 \(actual); \(why)."
        case .installedByAnother: "Installed and in use (another install finished it)."
        }
    }
}
