import Foundation
import Logging
import PlantStore
import ServiceLifecycle

/// Sends the re-check queue to Pl@ntNet in the background: a round every ``RecheckCapability/interval`` (sooner when
/// woken), each sending what the quota allows above its reserve, after embedding photos the loaded model has not
/// indexed yet (so a new default model, or an imported collection, is recognised without a command). It runs in the server's service group and stops
/// cleanly on SIGTERM: the round in progress stops between items, and an item being sent is left queued, never lost.
struct RecheckService: Service {
    let recheck: RecheckCapability
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            // The first round comes soon after start: a queue filled while the server was down need not wait.
            // Between rounds it waits on the wake signal or the next round's time, whichever comes first: no CPU while idle.
            var nextRound = ContinuousClock.now + .seconds(2)
            while !Task.isCancelled {
                await recheck.wake.wait(until: nextRound)
                guard !Task.isCancelled else { return }
                _ = recheck.wake.take()
                await round()
                nextRound = ContinuousClock.now + recheck.interval
            }
        }
    }

    /// One round: each household's photos and queue in its own scope, so every read and write stays in it.
    private func round() async {
        let households: [Int64]
        do {
            households = try await recheck.households()
        } catch {
            logger.warning("re-check round skipped: the households could not be read", metadata: ["error": "\(error)"])
            return
        }
        for household in households where !Task.isCancelled {
            await HouseholdScope.$current.withValue(HouseholdScope(household: household)) { await round(household: household) }
        }
    }

    private func round(household: Int64) async {
        do {
            let indexed = try await recheck.reindex()
            if indexed > 0 { logger.info("photos indexed for recognition", metadata: ["photos": "\(indexed)", "household": "\(household)"]) }
        } catch {
            logger.warning("photo indexing failed", metadata: ["error": "\(error)", "household": "\(household)"])
        }
        do {
            guard let run = try await recheck.drain() else { return }
            if run.sent > 0 || run.failed > 0 || run.expired > 0 || run.diagnosed > 0 {
                logger.info("re-check round", metadata: [
                    "sent": "\(run.sent)", "changed": "\(run.changed)", "failed": "\(run.failed)", "expired": "\(run.expired)",
                    "queued": "\(run.skipped)", "diagnosed": "\(run.diagnosed)", "diagnosesWaiting": "\(run.diagnosesWaiting)",
                    "household": "\(household)",
                ])
            }
        } catch {
            logger.warning("re-check round failed", metadata: ["error": "\(error)", "household": "\(household)"])
        }
    }
}
