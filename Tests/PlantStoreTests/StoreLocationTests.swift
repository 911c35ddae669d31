import Testing
import PlantStore

/// Database URLs parse into the right location; bad ones are refused with a message that says what is wrong and never
/// shows a password.
@Suite struct StoreLocationTests {
    @Test func sqlitePathsParse() throws {
        #expect(try StoreLocation(url: "sqlite:/srv/plantguide/collection.sqlite") == .sqlite(path: "/srv/plantguide/collection.sqlite"))
        #expect(try StoreLocation(url: "sqlite:relative/c.sqlite") == .sqlite(path: "relative/c.sqlite"))
        #expect(try StoreLocation(url: "sqlite:/a b.sqlite").description == "sqlite:/a b.sqlite")
    }

    @Test func postgresURLsParse() throws {
        let full = try StoreLocation(url: "postgres://alice:s%40cret@db.example.org:6543/garden?sslmode=require")
        #expect(
            full
                == .postgres(
                    PostgresLocation(
                        user: "alice", password: "s@cret", host: "db.example.org", port: 6543, database: "garden",
                        sslMode: .require
                    )
                )
        )
        let plain = try StoreLocation(url: "postgresql://postgres@127.0.0.1/postgres")
        #expect(plain == .postgres(PostgresLocation(user: "postgres", host: "127.0.0.1", database: "postgres")))
        guard case .postgres(let defaults) = plain else { Issue.record("not postgres"); return }
        #expect(defaults.port == 5432)
        #expect(defaults.sslMode == .prefer)
        #expect(defaults.password == nil)
        #expect(defaults.socketPath == nil)

        let socket = try StoreLocation(url: "postgres://plantguide@/plantguide?host=/run/postgresql")
        guard case .postgres(let viaSocket) = socket else { Issue.record("not postgres"); return }
        #expect(viaSocket.host == "")
        #expect(viaSocket.socketDirectory == "/run/postgresql")
        #expect(viaSocket.socketPath == "/run/postgresql/.s.PGSQL.5432")

        let ipv6 = try StoreLocation(url: "postgres://u@[::1]:5433/d?sslmode=disable")
        guard case .postgres(let v6) = ipv6 else { Issue.record("not postgres"); return }
        #expect(v6.host == "::1")
        #expect(v6.port == 5433)
        #expect(v6.sslMode == .disable)
        #expect(ipv6.description == "postgres://u@[::1]:5433/d?sslmode=disable")
    }

    @Test(arguments: [
        ("", "neither sqlite:PATH nor postgres://"),
        ("mysql://u@h/d", "neither sqlite:PATH nor postgres://"),
        ("sqlite:", "names no file"),
        ("postgres://h/d", "names no user"),
        ("postgres://u@h", "names no database"),
        ("postgres://u@h/", "names no database"),
        ("postgres://u@/d", "names no host"),
        ("postgres://u@h:0/d", "not a number from 1 to 65535"),
        ("postgres://u@h:99999/d", "not a number from 1 to 65535"),
        ("postgres://u@h:abc/d", "not a number from 1 to 65535"),
        ("postgres://u@h/d?sslmode=verify-full", "PlantGuide knows disable, prefer and require"),
        ("postgres://u@h/d?application_name=x", "PlantGuide knows sslmode and host"),
        ("postgres://u@h/d?host=run/pg", "absolute path of the socket directory"),
        ("postgres://u@[::1/d", "unclosed ["),
    ])
    func badURLsAreRefused(url: String, problem: String) {
        #expect {
            _ = try StoreLocation(url: url)
        } throws: { error in
            guard case .invalid(let message) = error as? StoreError else { return false }
            return message.contains(problem)
        }
    }

    /// The password is hidden in the description and in every error, including those of URLs that do not parse.
    @Test(arguments: [
        "postgres://alice:Tr0ub4dor@h:0/d",
        "postgres://alice:Tr0ub4dor@h/d?sslmode=bogus",
        "postgres://alice:Tr0ub4dor@h/d?x=1",
        "postgres://alice:Tr0ub4dor@/d",
        "postgres://alice:Tr0ub4dor@h",
        "postgres://alice:Tr0/ub4dor@h:x/d",
        "postgres://alice:Tr0?ub4dor@h:x/d",
        "postgresql://alice:Tr0ub4dor@[::1/d",
    ])
    func passwordsAreRedactedInErrors(url: String) {
        do {
            _ = try StoreLocation(url: url)
            Issue.record("\(url) parsed")
        } catch {
            #expect(!error.description.contains("ub4dor"))
            #expect(error.description.contains("alice:***@"))
        }
    }

    @Test func passwordsAreRedactedInDescriptions() throws {
        let location = try StoreLocation(url: "postgres://alice:Tr0ub4dor@db:5433/garden?sslmode=disable")
        #expect(location.description == "postgres://alice:***@db:5433/garden?sslmode=disable")
        #expect(!"\(location)".contains("Tr0ub4dor"))
        #expect(StoreLocation.redacted("postgres://a:b@h/d") == "postgres://a:***@h/d")
        #expect(StoreLocation.redacted("postgres://a@h:5/d") == "postgres://a@h:5/d")
    }
}
