import ArgumentParser

/// `plantguide recheck`: identifications that get better over time.
struct RecheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recheck",
        abstract: "Send identifications the device answered to Pl@ntNet later, and re-score them with a new model.",
        discussion: """
            When an identification is answered on the device because Pl@ntNet could not be reached, its daily \
            quota was used up, or the device was unsure, it is queued with its photos. `plantguide recheck` \
            sends the queue (saved plants first, then oldest first) while the quota lasts, keeping a reserve \
            for identifications you ask for now. The web app does the same by itself in the background.

            Each answer joins the identification's history. When Pl@ntNet's species differs from the plant's, \
            the plant is flagged ("Pl@ntNet thinks this is X (87 %)"), never renamed: accept or dismiss the \
            suggestion. Photos of identifications not saved to a plant are kept until they are re-checked, \
            or for 30 days.

            Examples:
              plantguide recheck --dry-run          What would be sent, and what the quota allows.
              plantguide recheck --limit 10 --json  Send at most 10.
              plantguide recheck list               The queue and the open suggestions.
              plantguide recheck accept 3           Take suggestion 3's species for the plant.
              plantguide recheck rescore            Re-score saved identifications with the default model.
            """,
        subcommands: [
            RecheckRunCommand.self, RecheckListCommand.self, RecheckAcceptCommand.self, RecheckDismissCommand.self,
            RecheckRescoreCommand.self,
        ],
        defaultSubcommand: RecheckRunCommand.self
    )
}
