import ArgumentParser
import Foundation
import PlantNetAPI

/// `plantguide quota`: how many Pl@ntNet identifications are left today.
struct QuotaCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "quota",
        abstract: "Show the Pl@ntNet daily quota as last reported by the service.",
        discussion: """
            The count comes from the last Pl@ntNet answer; it resets at 00:00 UTC. Levels: unknown (no \
            request since the reset), ok, low (≤ 100 left), very low (≤ 50), critical (≤ 10), exhausted; \
            --json names them unknown, ok, low, veryLow, critical, exhausted.

            Examples:
              plantguide quota
              plantguide quota --json        {"level": "ok", "remaining": 480, "resetsAt": "…"}
            """
    )

    @OptionGroup var output: OutputOptions

    func run(in context: CommandContext) async throws {
        let console = Console()
        let status = await PlantNetSetup(context).quota(console: console).status()
        if output.json {
            try console.printJSON(status)
            return
        }
        let remaining = status.remaining.map(String.init) ?? "not known yet (no request since the last reset)"
        console.print("Pl@ntNet requests left today: \(remaining)")
        console.print("Level: \(status.level.label)")
        console.print("Resets at: \(QuotaText.format(status.resetsAt))")
        if status.level.isWarning { console.warn(console.style(QuotaText.warning(status), .yellow)) }
    }
}
