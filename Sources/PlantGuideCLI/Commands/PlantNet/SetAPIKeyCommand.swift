import ArgumentParser
import Foundation
import PlantNetAPI

/// `plantguide config set-api-key`: saves the Pl@ntNet key read from standard input (never an argument, so it
/// stays out of shell history and process lists).
struct SetAPIKeyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set-api-key",
        abstract: "Save the Pl@ntNet API key, read from standard input.",
        discussion: """
            The key is read from standard input (one line) and saved in the data directory, readable by \
            you only (mode 0600). PLANTNET_API_KEY, when set, takes precedence. The key is never printed.

            Examples:
              plantguide config set-api-key < key.txt
              echo "$PLANTNET_KEY" | plantguide config set-api-key
            """
    )

    func run(in context: CommandContext) async throws {
        let console = Console()
        if isatty(STDIN_FILENO) == 1 { console.warn("Paste the Pl@ntNet API key and press Enter:") }
        guard let line = readLine(strippingNewline: true) else {
            console.warn("error: no key on standard input.")
            throw ExitCode(1)
        }
        let setup = PlantNetSetup(context)
        do {
            try setup.directory.createIfNeeded()
            try setup.keyStore.save(line)
        } catch {
            console.warn("error: \(Redaction.redact(error.description, secret: line.trimmingCharacters(in: .whitespaces)))")
            throw ExitCode(1)
        }
        console.print("Saved the Pl@ntNet API key to \(setup.keyStore.file.path) (readable by you only).")
    }
}
