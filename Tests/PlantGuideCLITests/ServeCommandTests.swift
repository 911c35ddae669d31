import Foundation
import PlantGuideTestSupport
import Testing

/// `plantguide serve`'s options that people never see: the load check's bare route.
@Suite struct ServeCommandTests {
    @Test func theBenchmarkFlagIsHiddenFromHelp() throws {
        let cli = try CommandLineRunner()
        defer { cli.cleanUp() }
        let help = try cli.run(["serve", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("--queue-length"))
        #expect(!help.stdout.contains("benchmark"))
    }

    @Test func theBenchmarkRoutesStayOnLoopback() throws {
        let cli = try CommandLineRunner()
        defer { cli.cleanUp() }
        let outcome = try cli.run(["serve", "--host", "0.0.0.0", "--port", "0", "--benchmark-routes"])
        #expect(outcome.status != 0)
        #expect(!outcome.killedBySignal)
        #expect(outcome.stderr.contains("--benchmark-routes is for load checks on a loopback address only"), "\(outcome.stderr)")
    }
}
