import ArgumentParser
import Foundation
import PlantGuideCore
import PlantStore
import PlantStorePostgres
import PlantStoreSQLite

/// `plantguide migrate --to postgres://…`: copies the SQLite collection into PostgreSQL exactly, and checks the copy.
///
/// It reads the data directory's SQLite database (or `--from`) and writes to `--to`, whatever
/// `PLANTGUIDE_DATABASE_URL` says, so it is not one of the commands that refuse another database.
struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Copy the collection from its SQLite database into PostgreSQL, exactly, and check the copy.",
        discussion: """
            Every table is copied with its ids: plants, photos and their links, care profiles, schedules \
            and events, identifications, re-checks and suggestions, the identification log, photo \
            embeddings, learned species names, households, accounts (with their password hashes, so \
            everyone logs in as before), live log-ins (so nobody is logged out by the move), the Pl@ntNet \
            quota and answer cache, the server's secret, household settings and recent uploads. It runs in \
            one transaction: the target ends with all of it or none of it. New rows on PostgreSQL then get \
            ids after the copied ones.

            The target database must exist (createdb) and be empty: anything but the household "Home" every \
            new database starts with counts as a collection, and is refused. --force deletes what the target \
            holds and copies over it, in the same transaction.

            After copying, the two databases are compared: every table's rows, value for value, and the \
            collection's export from each. Any difference is reported and the command fails.

            Photos are not in the database: they stay in the data directory (photos/, uploads/), which \
            every server replica shares. Stop the servers that use the SQLite database before migrating, \
            and afterwards start them on PostgreSQL with `plantguide serve --database URL` (or \
            PLANTGUIDE_DATABASE_URL=URL). The SQLite file is only read (after the upgrade to this \
            version's schema every command makes), and is kept as it was: a fallback. Passwords in URLs \
            are never printed.

            Examples:
              createdb plantguide
              plantguide migrate --to postgres://plantguide@localhost/plantguide
              plantguide migrate --to postgres://pg@db.example.org/plants?sslmode=require
              plantguide migrate --force \\
                  --to 'postgres://plantguide@/plantguide?host=/run/postgresql'
              plantguide migrate --from sqlite:/backups/collection.sqlite \\
                  --to postgres://plantguide@localhost/plantguide --force
              plantguide serve --database postgres://plantguide@localhost/plantguide
            """
    )

    @Option(name: .customLong("to"), help: ArgumentHelp(
        "postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=require|host=/socket/dir]: the database to copy into.",
        valueName: "url"
    ))
    var target: String

    @Option(name: .customLong("from"), help: ArgumentHelp(
        "sqlite:PATH: the SQLite database to copy (default: collection.sqlite in the data directory).", valueName: "url"
    ))
    var source: String?

    @Flag(help: "Replace whatever the target database already holds.")
    var force = false

    @OptionGroup var output: OutputOptions

    func run() async throws {
        let console = Console()
        let to = try targetLocation()
        let sourceURL = try sourceFile()
        guard FileManager.default.fileExists(atPath: sourceURL.path) else {
            throw MigrateError(description: "There is no collection at \(sourceURL.path) to copy. Name another with --from sqlite:PATH, "
                + "or set PLANTGUIDE_HOME to the data directory that holds it.")
        }
        let database = try CollectionDatabase.open(at: sourceURL)
        let clock = ContinuousClock()
        let started = clock.now
        let progress = ProgressBar(label: "Copying")
        let force = force
        let (copied, copyTime, verification) = try await PostgresStore.withStore(to) { store in
            let copied: Int
            do {
                copied = try await store.copyCollection(from: database, replacing: force) { step in
                    progress.update(
                        done: Double(step.rowsCopied), total: Double(step.totalRows),
                        detail: "\(step.table) (\(step.rowsCopied) of \(step.totalRows) rows)"
                    )
                }
            } catch let error as TargetNotEmptyError {
                progress.finish()
                throw MigrateError(description: "\(error) Migrate copies into an empty database; add --force to delete what it "
                    + "holds and copy over it.")
            }
            progress.finish()
            let copyTime = clock.now - started
            let checking = ProgressBar(label: "Checking")
            checking.update(done: 0, total: nil, detail: "every table's rows and the two exports", force: true)
            let verification = try await store.verifyCopy(of: database, now: Date())
            checking.finish()
            return (copied, copyTime, verification)
        }
        let elapsed = clock.now - started
        if output.json {
            try console.printJSON(MigrateJSON(
                source: sourceURL.path, target: to.description, rowsCopied: copied, copyMilliseconds: Int(copyTime.inMilliseconds.rounded()),
                milliseconds: Int(elapsed.inMilliseconds.rounded()),
                verified: verification.isExact, exportsEqual: verification.exportsEqual, tables: verification.tables
            ))
        } else {
            printSummary(
                verification, copied: copied, from: sourceURL.path, to: to, copyTime: copyTime, elapsed: elapsed, console: console
            )
        }
        guard verification.isExact else {
            let tables = verification.differingTables.map(\.table)
            throw MigrateError(description: "The copy in \(to) differs from \(sourceURL.path)"
                + (tables.isEmpty ? "" : " in \(tables.joined(separator: ", "))")
                + (verification.exportsEqual ? "" : (tables.isEmpty ? " in its export" : ", and in its export"))
                + ". Do not switch to it; run migrate again with --force once the cause is fixed.")
        }
    }

    private func printSummary(
        _ verification: CopyVerification, copied: Int, from source: String, to target: PostgresLocation, copyTime: Duration,
        elapsed: Duration, console: Console
    ) {
        console.print("Copied \(source) to \(target):")
        let width = max(5, verification.tables.map(\.table.count).max() ?? 0)
        console.print("  " + "table".padding(toLength: width, withPad: " ", startingAt: 0) + "   rows")
        for check in verification.tables {
            let same = check.rowsEqual && check.sourceRows == check.targetRows
            var line = "  " + check.table.padding(toLength: width, withPad: " ", startingAt: 0) + " "
                + String(check.targetRows).leftPadded(to: 6)
            if !same { line += console.style("  differs: \(check.sourceRows) row(s) in SQLite", .red) }
            console.print(line)
        }
        func seconds(_ duration: Duration) -> String { String(format: "%.1f s", duration.inMilliseconds / 1000) }
        guard verification.isExact else { return }
        console.print("Verified: every table holds the same rows, and the two exports are equal "
            + "(\(counted(copied, "row")) copied in \(seconds(copyTime)), checked in \(seconds(elapsed - copyTime))).")
        console.print("Next: stop the servers on SQLite and start them on PostgreSQL: plantguide serve --database URL "
            + "(or PLANTGUIDE_DATABASE_URL=URL). Photos stay in the data directory.")
    }

    private func targetLocation() throws -> PostgresLocation {
        let location: StoreLocation
        do {
            location = try StoreLocation(url: target)
        } catch {
            throw ValidationError("--to: \(error.description)")
        }
        guard case .postgres(let postgres) = location else {
            throw ValidationError("--to: migrate copies into PostgreSQL; give a postgres:// URL, not \(location).")
        }
        return postgres
    }

    private func sourceFile() throws -> URL {
        guard let source else {
            return DataDirectory.resolve().appending(CollectionDatabase.fileName)
        }
        let location: StoreLocation
        do {
            location = try StoreLocation(url: source)
        } catch {
            throw ValidationError("--from: \(error.description)")
        }
        guard case .sqlite(let path) = location else {
            throw ValidationError("--from: migrate copies from an SQLite database; give sqlite:PATH, not \(location).")
        }
        return URL(fileURLWithPath: path)
    }

    private struct MigrateJSON: Encodable {
        var source: String
        var target: String
        var rowsCopied: Int
        /// Connecting, migrating the target's schema and copying.
        var copyMilliseconds: Int
        /// All of it, verification included.
        var milliseconds: Int
        var verified: Bool
        var exportsEqual: Bool
        var tables: [CopiedTableCheck]
    }
}

/// Why `plantguide migrate` stopped.
struct MigrateError: Error, CustomStringConvertible {
    let description: String
}

private extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
