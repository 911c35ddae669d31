import Foundation
import PlantGuideTestSupport
import Testing

/// Messages of the command line that people act on: errors that say what to do, help examples, counts.
@Suite struct CommandWordingTests {
    @Test func serveOnANetworkAddressWithoutAPasswordSaysHowToSetOne() throws {
        let cli = try CommandLineRunner()
        defer { cli.cleanUp() }
        let outcome = try cli.run(["serve", "--host", "0.0.0.0", "--port", "0"])
        #expect(outcome.status != 0)
        #expect(!outcome.killedBySignal)
        #expect(outcome.stderr.contains("needs a password"))
        #expect(outcome.stderr.contains("plantguide serve --set-password"))
        // Its own message, not the top-level usage.
        #expect(!outcome.stderr.contains("SUBCOMMANDS"))
        #expect(!outcome.stderr.contains("USAGE"))
    }

    @Test func topLevelHelpShowsIdentifyServeAndModelInstall() throws {
        let cli = try CommandLineRunner()
        defer { cli.cleanUp() }
        let help = try cli.run(["--help"])
        #expect(help.status == 0)
        for example in ["plantguide identify ", "plantguide serve ", "plantguide model install "] {
            #expect(help.stdout.contains(example), "\(example)")
        }
    }
}
