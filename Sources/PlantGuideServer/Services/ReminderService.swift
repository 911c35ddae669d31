import Foundation
import Hummingbird
import Logging
import PlantReminders
import ServiceLifecycle

/// Sends the care reminders while the server runs: a round of ``ReminderRunner/run(now:dryRun:)`` (the code path
/// `plantguide notify run` takes), then sleep until the next channel's time of day, or at most ``longestSleep`` (so a
/// channel added or a failed send's retry is seen within minutes). No CPU is used in between.
struct ReminderService: Service {
    /// The longest sleep between rounds.
    static let longestSleep: TimeInterval = 300

    let runner: ReminderRunner
    let logger: Logger

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await round()
                let next = (try? await runner.nextSendTime(after: Date())) ?? nil
                let wait = min(max(next.map { $0.timeIntervalSinceNow } ?? Self.longestSleep, 1), Self.longestSleep)
                try await Task.sleep(for: .milliseconds(Int64(wait * 1000)))
            }
        }
    }

    private func round() async {
        do {
            for result in try await runner.run(now: Date()) {
                switch result.state {
                case .sent:
                    logger.info("care reminder sent", metadata: [
                        "channel": "\(result.channel)", "kind": "\(result.kind.rawValue)", "tasks": "\(result.tasks)",
                    ])
                case .failed:
                    logger.warning("care reminder not sent", metadata: [
                        "channel": "\(result.channel)", "kind": "\(result.kind.rawValue)", "error": "\(result.error ?? "")",
                    ])
                default:
                    break
                }
            }
        } catch {
            logger.warning("care reminders could not be read", metadata: ["error": "\(error)"])
        }
    }
}
