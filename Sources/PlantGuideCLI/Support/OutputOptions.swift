import ArgumentParser

/// `--json`, shared by every command that prints results.
struct OutputOptions: ParsableArguments {
    @Flag(name: .long, help: "Print machine-readable JSON instead of text.")
    var json = false
}
