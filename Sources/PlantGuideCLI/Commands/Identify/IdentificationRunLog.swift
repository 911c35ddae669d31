import Foundation
import PlantGuideCore
import PlantIdentification
import PlantStore

/// Logs every identification the command line makes, saved or not, in the collection database's identification
/// log for `plantguide stats`. A log that cannot be opened or written only warns: the answer matters more.
struct IdentificationRunLog {
    private let store: Result<any PlantGuideStore, any Error>
    private let now: @Sendable () -> Date
    private let console: Console

    /// Opens the log in the run's database; the clock is pinned by `PLANTGUIDE_NOW` as for the collection.
    init(console: Console, context: CommandContext) {
        self.console = console
        let pinned: (@Sendable () -> Date)? = try? CollectionEnvironment.clock(context.environment)
        now = pinned ?? { Date() }
        do {
            store = .success(try context.open())
        } catch {
            store = .failure(error)
        }
    }

    /// Logs `result`; on failure, says so on standard error and carries on.
    func record(_ result: HybridResult) async {
        do {
            let time = now()
            try await store.get().recordIdentificationRun(result.run(at: time), now: time, retention: .standard)
        } catch {
            console.warn(console.style("warning: this identification is not counted in `plantguide stats`: \(error)", .yellow))
        }
    }
}
