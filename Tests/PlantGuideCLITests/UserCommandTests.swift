import Foundation
import PlantGuideTestSupport
import Testing

/// `plantguide user`: accounts for the web app, run through the real binary on a real data directory.
@Suite struct UserCommandTests {
    @Test func addListPasswdAndRemoveAccounts() throws {
        let cli = try CommandLineRunner()
        defer { cli.cleanUp() }
        let empty = try cli.run(["user", "list"])
        #expect(empty.status == 0)
        #expect(empty.stdout.contains("No accounts yet"))

        let alice = try cli.run(["user", "add", "alice"], input: Data("correct horse battery\n".utf8))
        #expect(alice.status == 0, "\(alice.stderr)")
        #expect(alice.stdout.contains("Added alice as owner (a household's first account is always its owner)."), "\(alice.stdout)")
        let bob = try cli.run(["user", "add", "bob", "--json"], input: Data("another passphrase\n".utf8))
        #expect(bob.status == 0, "\(bob.stderr)")
        let bobJSON = try #require(try bob.json() as? [String: Any])
        #expect(bobJSON["role"] as? String == "member")
        let carol = try cli.run(["user", "add", "carol", "--role", "owner"], input: Data("passphrase three\n".utf8))
        #expect(carol.stdout.contains("Added carol as owner."), "\(carol.stdout)")

        let list = try cli.run(["user", "list", "--json"])
        #expect(list.status == 0)
        let accounts = try #require(try list.json() as? [[String: Any]])
        #expect(accounts.map { $0["name"] as? String } == ["alice", "bob", "carol"])
        #expect(accounts.map { $0["role"] as? String } == ["owner", "member", "owner"])
        #expect(!list.stdout.contains("pbkdf2"), "a hash was shown")

        let passwd = try cli.run(["user", "passwd", "BOB"], input: Data("a new passphrase\n".utf8))
        #expect(passwd.status == 0, "\(passwd.stderr)")
        #expect(passwd.stdout.contains("its log-ins have ended"))

        #expect(try cli.run(["user", "remove", "bob"]).status == 0)
        #expect(try cli.run(["user", "remove", "alice"]).status == 0)
        let last = try cli.run(["user", "remove", "carol"])
        #expect(last.status != 0)
        #expect(!last.killedBySignal)
        #expect(last.stderr.contains("last owner"), "\(last.stderr)")
        let text = try cli.run(["user", "list"])
        #expect(text.stdout.contains("carol") && !text.stdout.contains("alice"))
    }

    @Test func badInputIsRefusedClearly() throws {
        let cli = try CommandLineRunner()
        defer { cli.cleanUp() }
        let short = try cli.run(["user", "add", "alice"], input: Data("short\n".utf8))
        #expect(short.status != 0)
        #expect(short.stderr.contains("at least 8 characters"), "\(short.stderr)")
        let noInput = try cli.run(["user", "add", "alice"])
        #expect(noInput.status != 0)
        let badName = try cli.run(["user", "add", "al ice"], input: Data("correct horse battery\n".utf8))
        #expect(badName.status != 0)
        #expect(badName.stderr.contains("not a valid name"), "\(badName.stderr)")
        let badRole = try cli.run(["user", "add", "alice", "--role", "admin"], input: Data("correct horse battery\n".utf8))
        #expect(badRole.status != 0)
        #expect(try cli.run(["user", "add", "alice"], input: Data("correct horse battery\n".utf8)).status == 0)
        let taken = try cli.run(["user", "add", "ALICE"], input: Data("correct horse battery\n".utf8))
        #expect(taken.status != 0)
        #expect(taken.stderr.contains("exists already"), "\(taken.stderr)")
        let missing = try cli.run(["user", "passwd", "nobody"], input: Data("correct horse battery\n".utf8))
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("No account is named 'nobody'"), "\(missing.stderr)")
        for outcome in [short, noInput, badName, badRole, taken, missing] { #expect(!outcome.killedBySignal) }
    }

    /// `user set` chooses an account's language and temperature unit; an option left out stays; `auto` goes back.
    @Test func setChoosesTheLanguageAndUnitOfAnAccount() throws {
        let cli = try CommandLineRunner()
        defer { cli.cleanUp() }
        #expect(try cli.run(["user", "add", "alice"], input: Data("correct horse battery\n".utf8)).status == 0)
        let french = try cli.run(["user", "set", "ALICE", "--language", "fr"])
        #expect(french.status == 0, "\(french.stderr)")
        #expect(french.stdout == "alice: pages in Français, temperatures in °F in the United States, else °C.\n", "\(french.stdout)")
        let unit = try cli.run(["user", "set", "alice", "--temperature-unit", "fahrenheit", "--json"])
        let json = try #require(try unit.json() as? [String: Any])
        #expect(json["language"] as? String == "fr")
        #expect(json["temperatureUnit"] as? String == "fahrenheit")
        let listed = try #require(try cli.run(["user", "list", "--json"]).json() as? [[String: Any]])
        #expect(listed.first?["language"] as? String == "fr")
        let automatic = try cli.run(["user", "set", "alice", "--language", "auto", "--temperature-unit", "auto", "--json"])
        let back = try #require(try automatic.json() as? [String: Any])
        #expect(back["language"] == nil && back["temperatureUnit"] == nil, "\(back)")

        for (arguments, says) in [
            (["user", "set", "alice"], "Say what to set"),
            (["user", "set", "alice", "--language", "pt"], "PlantGuide is not written in 'pt'"),
            (["user", "set", "alice", "--temperature-unit", "kelvin"], "celsius or fahrenheit"),
            (["user", "set", "nobody", "--language", "de"], "No account is named 'nobody'"),
        ] {
            let refused = try cli.run(arguments)
            #expect(refused.status != 0 && !refused.killedBySignal, "\(arguments)")
            #expect(refused.stderr.contains(says), "\(arguments): \(refused.stderr)")
        }
        let help = try cli.run(["user", "set", "--help"])
        #expect(help.stdout.contains("plantguide user set alice --language fr"))
    }

    @Test func helpTeachesWithExamples() throws {
        let cli = try CommandLineRunner()
        defer { cli.cleanUp() }
        let help = try cli.run(["user", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("echo 'a long passphrase' | plantguide user add alice"))
        #expect(help.stdout.contains("last owner"))
        let add = try cli.run(["user", "add", "--help"])
        #expect(add.stdout.contains("--role"))
    }

    @Test func theOldPasswordFileBecomesTheOwnerAndSetPasswordChangesIt() throws {
        let cli = try CommandLineRunner()
        defer { cli.cleanUp() }
        // What `serve --set-password` wrote before accounts: one hash in `web-password`.
        let set = try cli.run(["serve", "--set-password"], input: Data("first passphrase\n".utf8))
        #expect(set.status == 0, "\(set.stderr)")
        #expect(set.stdout.contains("'owner' was created"), "\(set.stdout)")
        let again = try cli.run(["serve", "--set-password"], input: Data("second passphrase\n".utf8))
        #expect(again.stdout.contains("password of the owner account 'owner' was changed"), "\(again.stdout)")
        let short = try cli.run(["serve", "--set-password"], input: Data("short\n".utf8))
        #expect(short.status != 0)

        let other = try CommandLineRunner()
        defer { other.cleanUp() }
        let legacy = "pbkdf2-sha256$1000$c2FsdA==$" + Data(repeating: 7, count: 32).base64EncodedString() + "\n"
        try Data(legacy.utf8).write(to: other.home.appendingPathComponent("web-password"))
        let list = try other.run(["user", "list", "--json"])
        #expect(list.status == 0, "\(list.stderr)")
        let accounts = try #require(try list.json() as? [[String: Any]])
        #expect(accounts.map { $0["name"] as? String } == ["owner"])
        #expect(FileManager.default.fileExists(atPath: other.home.appendingPathComponent("web-password.imported").path))
        #expect(!FileManager.default.fileExists(atPath: other.home.appendingPathComponent("web-password").path))
    }

    @Test func anExposedServerNeedsAnAccount() throws {
        let cli = try CommandLineRunner()
        defer { cli.cleanUp() }
        let outcome = try cli.run(["serve", "--host", "0.0.0.0", "--port", "0"])
        #expect(outcome.status != 0)
        #expect(!outcome.killedBySignal)
        #expect(outcome.stderr.contains("plantguide user add"), "\(outcome.stderr)")
    }
}
