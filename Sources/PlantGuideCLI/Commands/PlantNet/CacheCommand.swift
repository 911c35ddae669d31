import ArgumentParser

/// `plantguide cache stats|clear`: the Pl@ntNet answer cache.
struct CacheCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "Inspect or empty the cache of Pl@ntNet answers.",
        discussion: """
            Answers are kept 7 days, at most 100, by the SHA-256 of each photo (a re-saved copy is \
            recognised by its perceptual hash). A cached answer costs no request and no quota.

            Examples:
              plantguide cache stats
              plantguide cache stats --json
              plantguide cache clear
            """,
        subcommands: [CacheStatsCommand.self, CacheClearCommand.self]
    )
}
