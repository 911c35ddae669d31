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
        #expect(outcome.stderr.contains("needs a log-in first, and no account exists"), "\(outcome.stderr)")
        #expect(outcome.stderr.contains("plantguide user add alice"))
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

    @Test func aSpeciesMissSuggestsAQuotedSearch() throws {
        let cli = try CommandLineRunner()
        defer { cli.cleanUp() }
        let outcome = try cli.run(["species", "show", "qqqq", "zzzz"])
        #expect(outcome.status != 0)
        #expect(outcome.stderr.contains(#"Try `plantguide search "qqqq zzzz"`"#), "\(outcome.stderr)")
    }

    @Test func countsOfOneAreSingular() throws {
        let runner = try collectionRunner()
        defer { runner.cleanUp() }
        _ = try runner.jsonObject(["collection", "add", "Boston fern", "--json"])
        #expect(try runner.run(["care", "done", "1", "water"]).status == 0)
        let archive = runner.home.appendingPathComponent("one.zip")
        let exported = try runner.run(["export", archive.path])
        #expect(exported.status == 0, "\(exported.stderr)")
        #expect(exported.stdout.contains("Exported 1 plant, 1 care event, 0 photos and 0 identifications"), "\(exported.stdout)")
        let backup = try runner.run(["backup", runner.home.appendingPathComponent("copy.sqlite").path])
        #expect(backup.stdout.contains("Backed up 1 plant to"), "\(backup.stdout)")
    }
}
