import Foundation
import PlantGuideTestSupport
import Testing

/// `--household`: the command line acts for one household's collection, through the real binary and database.
@Suite struct HouseholdCommandTests {
    @Test func collectionCommandsActForTheHouseholdNamed() throws {
        var runner = try collectionRunner()
        defer { runner.cleanUp() }
        let password = Data("a long passphrase\n".utf8)
        #expect(try runner.run(["user", "add", "alice"], input: password).status == 0)
        let dave = try runner.run(["user", "add", "dave", "--household", "Joneses", "--role", "member"], input: password)
        #expect(dave.status == 0, "\(dave.stderr)")
        #expect(dave.stdout.contains("Added dave as owner of the household Joneses (a household's first account is always its owner)."),
                "\(dave.stdout)")

        let home = try runner.jsonObject(["collection", "add", "Snake plant", "--nickname", "Spike", "--json"])
        let joneses = try runner.jsonObject(["collection", "add", "Snake plant", "--nickname", "Fern Gully", "--household", "joneses", "--json"])
        #expect(home["id"] as? Int != joneses["id"] as? Int)
        // Each household lists its own plant only; the option may come first, and the environment may name it.
        let listHome = try runner.jsonArray(["collection", "list", "--json"])
        #expect(listHome.compactMap { $0["nickname"] as? String } == ["Spike"])
        let listJoneses = try runner.jsonArray(["--household", "Joneses", "collection", "list", "--json"])
        #expect(listJoneses.compactMap { $0["nickname"] as? String } == ["Fern Gully"])
        runner.environment["PLANTGUIDE_HOUSEHOLD"] = "Joneses"
        let fromEnvironment = try runner.jsonArray(["collection", "list", "--json"])
        #expect(fromEnvironment.compactMap { $0["nickname"] as? String } == ["Fern Gully"])
        runner.environment["PLANTGUIDE_HOUSEHOLD"] = nil
        // Another household's plant is not found by id.
        let id = try #require(home["id"] as? Int)
        let foreign = try runner.run(["collection", "show", "\(id)", "--household", "Joneses"])
        #expect(foreign.status != 0 && !foreign.killedBySignal)
        #expect(foreign.stderr.contains("No plant with id \(id)"), "\(foreign.stderr)")

        // Unknown households and commands that have no collection are refused, saying why.
        let unknown = try runner.run(["collection", "list", "--household", "Smiths"])
        #expect(unknown.status != 0 && !unknown.killedBySignal)
        #expect(unknown.stderr.contains("No household is named 'Smiths'") && unknown.stderr.contains("'Joneses'"), "\(unknown.stderr)")
        let search = try runner.run(["search", "monstera", "--household", "Joneses"])
        #expect(search.status != 0)
        #expect(search.stderr.contains("does not use the collection"), "\(search.stderr)")
        let quota = try runner.run(["quota", "--household", "Joneses"])
        #expect(quota.status != 0 && !quota.killedBySignal)
        #expect(quota.stderr.contains("the Pl@ntNet quota, which every household shares"), "\(quota.stderr)")

        // `user add` takes the household from PLANTGUIDE_HOUSEHOLD too, but only --household makes one.
        runner.environment["PLANTGUIDE_HOUSEHOLD"] = "Joneses"
        let eve = try runner.run(["user", "add", "eve"], input: password)
        #expect(eve.stdout.contains("Added eve as member of the household Joneses"), "\(eve.stdout) \(eve.stderr)")
        runner.environment["PLANTGUIDE_HOUSEHOLD"] = "Jonses"
        let typo = try runner.run(["user", "add", "frank"], input: password)
        #expect(typo.status != 0 && typo.stderr.contains("which does not exist"), "\(typo.stderr)")
        // The commands every household shares do not look the variable's household up.
        #expect(try runner.run(["quota", "--json"]).status == 0)
        runner.environment["PLANTGUIDE_HOUSEHOLD"] = nil

        // `user list` shows the households.
        let users = try runner.run(["user", "list", "--json"])
        let accounts = try #require(try users.json() as? [[String: Any]])
        #expect(accounts.map { $0["householdName"] as? String } == ["Home", "Joneses", "Joneses"])
        let text = try runner.run(["user", "list"])
        #expect(text.stdout.contains("Home") && text.stdout.contains("Joneses"), "\(text.stdout)")
        // `household list`: every household with its accounts and plants.
        let households = try runner.jsonArray(["household", "list", "--json"])
        #expect(households.map { $0["name"] as? String } == ["Home", "Joneses"])
        #expect(households.map { $0["accounts"] as? Int } == [1, 2])
        #expect(households.map { $0["owners"] as? Int } == [1, 1])
        #expect(households.map { $0["plants"] as? Int } == [1, 1])
        let listed = try runner.run(["household"])
        #expect(listed.stdout.contains("Joneses") && listed.stdout.contains("2 households"), "\(listed.stdout)")
        let scoped = try runner.run(["household", "list", "--household", "Joneses"])
        #expect(scoped.status != 0 && scoped.stderr.contains("`plantguide household list` works on"), "\(scoped.stderr)")

        let onlyJoneses = try runner.run(["user", "list", "--household", "JONESES", "--json"])
        #expect((try onlyJoneses.json() as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["dave", "eve"])
    }
}
