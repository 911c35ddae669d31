import Foundation
import PlantGuideTestSupport
import Testing

/// `plantguide diagnose`, run as a separate process against the stand-in's disease service.
@Suite struct DiagnoseCommandTests {
    private func runner(_ stub: PlantNetStub) throws -> CommandLineRunner {
        try CommandLineRunner(environment: [
            "PLANTGUIDE_PLANTNET_URL": stub.baseURL.absoluteString, "PLANTNET_API_KEY": "stub-key", "NO_COLOR": "1",
        ])
    }

    private func writePhoto(_ runner: CommandLineRunner, seed: UInt8) throws -> String {
        let url = runner.home.appendingPathComponent("sick-\(seed).png")
        try PNGFixture.gradient(width: 96, height: 64, seed: seed).write(to: url)
        return url.path
    }

    @Test func aDiagnosisNamesEachCandidateAsksOnceAndIsCachedWithItsDiseaseList() async throws {
        let stub = try await PlantNetStub.start()
        defer { Task { await stub.stop() } }
        let cli = try runner(stub)
        defer { cli.cleanUp() }
        let photo = try writePhoto(cli, seed: 7)

        let text = try cli.run(["diagnose", photo, "--organ", "leaf"])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("Grey mould (BOTRCI)"))
        // Named from the disease list where the answer gives no name; a code no list has is shown with its code.
        #expect(text.stdout.contains("Two-spotted spider mite (TETRUR)"))
        #expect(text.stdout.contains("ZZSTUB  not in Pl@ntNet's disease list"))
        #expect(text.stdout.contains("Stub Pathologist 1 / Pl@ntNet stub, cc-by"))
        // 62 % is below 70 %: what to do next.
        #expect(text.stdout.contains("What to do next") && text.stdout.contains("no candidate scores 70 %"))
        #expect(text.stdout.contains("Pl@ntNet requests left today: 499"))
        let asked = stub.requests.filter { $0.path == "/v2/diseases/identify" }
        #expect(asked.count == 1)
        let sent = try #require(asked.first)
        #expect(sent.query["lang"] == "en" && sent.query["nb-results"] == "5" && sent.query["include-related-images"] == "true")
        #expect(sent.parts.first { $0.name == "organs" }?.text == "leaf")
        #expect(sent.parts.first { $0.name == "images" }?.data.starts(with: [0xFF, 0xD8]) == true)
        #expect(stub.requests.filter { $0.path == "/v2/diseases" }.count == 1)

        // The same photo again: from the cache, nothing sent; the JSON keeps codes, names and scores.
        let again = try cli.run(["diagnose", photo, "--organ", "leaf", "--json"])
        #expect(again.status == 0, "\(again.stderr)")
        let answer = try #require(try again.json() as? [String: Any])
        #expect(answer["source"] as? String == "cache")
        #expect(answer["confident"] as? Bool == false && answer["rejected"] as? Bool == false)
        let candidates = try #require(answer["candidates"] as? [[String: Any]])
        #expect(candidates.map { $0["eppoCode"] as? String } == ["BOTRCI", "TETRUR", "ZZSTUB"])
        #expect(candidates.map { $0["inDiseaseList"] as? Bool } == [true, true, false])
        #expect(candidates.first?["score"] as? Double == 0.62)
        #expect((answer["nextSteps"] as? [String])?.isEmpty == false)
        #expect(stub.requests.filter { $0.path == "/v2/diseases/identify" }.count == 1)

        // A new photo asks again, but the disease list is kept (30 days) and not asked for twice.
        let other = try cli.run(["diagnose", try writePhoto(cli, seed: 8), "--json"])
        #expect(other.status == 0, "\(other.stderr)")
        #expect(stub.requests.filter { $0.path == "/v2/diseases/identify" }.count == 2)
        #expect(stub.requests.filter { $0.path == "/v2/diseases" }.count == 1)
        // One quota for identify and diagnose.
        let quota = try #require(try cli.run(["quota", "--json"]).json() as? [String: Any])
        #expect(quota["remaining"] as? Int == 498)
    }

    @Test func noDiseaseIsAnAnswerAndBadInputIsRefusedBeforeAnythingIsSent() async throws {
        var behaviour = PlantNetStubBehaviour()
        behaviour.diseases = []
        let stub = try await PlantNetStub.start(behaviour: behaviour)
        defer { Task { await stub.stop() } }
        let cli = try runner(stub)
        defer { cli.cleanUp() }
        let photo = try writePhoto(cli, seed: 9)

        let none = try cli.run(["diagnose", photo])
        #expect(none.status == 0, "\(none.stderr)")
        #expect(none.stdout.contains("No disease found that Pl@ntNet's disease service knows."))

        let habit = try cli.run(["diagnose", photo, "--organ", "habit"])
        #expect(habit.status == 64)
        #expect(habit.stderr.contains("The disease service takes photos of a leaf, flower, fruit or bark"))
        let notAPhoto = cli.home.appendingPathComponent("notes.txt")
        try Data("water on Sundays".utf8).write(to: notAPhoto)
        let text = try cli.run(["diagnose", notAPhoto.path])
        #expect(text.status != 0 && text.stderr.contains("Cannot read the photo"))
        let six = try cli.run(["diagnose"] + Array(repeating: photo, count: 6))
        #expect(six.status == 64 && six.stderr.contains("Give 1 to 5 photos"))
        #expect(stub.requests.filter { $0.path == "/v2/diseases/identify" }.count == 1)

        // Used up: a 429 is explained with the reset, and the next call is not sent.
        stub.configure { $0.quotaLimit = 1 }
        let refused = try cli.run(["diagnose", try writePhoto(cli, seed: 10)])
        #expect(refused.status == 1 && refused.stderr.lowercased().contains("quota"), "\(refused.stderr)")
        #expect(!refused.stderr.contains("stub-key"))
    }

    @Test func aPlantsCareLogFollowsTheAnswerAsFactsAndAWrongIdCostsNoRequest() async throws {
        let stub = try await PlantNetStub.start()
        defer { Task { await stub.stop() } }
        let cli = try runner(stub)
        defer { cli.cleanUp() }
        let photo = try writePhoto(cli, seed: 11)
        #expect(try cli.run(["collection", "add", "Boston fern", "--species", "Nephrolepis exaltata"]).status == 0)
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd"
        formatter.timeZone = .current
        for daysAgo in [3, 12, 45] {
            let day = formatter.string(from: Date().addingTimeInterval(Double(-daysAgo) * 86_400))
            #expect(try cli.run(["care", "done", "1", "water", "--date", day]).status == 0)
        }
        let repotted = formatter.string(from: Date().addingTimeInterval(-70 * 86_400))
        #expect(try cli.run(["care", "done", "1", "repot", "--date", repotted]).status == 0)
        #expect(try cli.run(["care", "conditions", "1", "--light", "low"]).status == 0)
        // A soil check is logged against watering, but it is not a watering.
        #expect(try cli.run(["care", "check", "1", "--wet"]).status == 0)
        // Watered 3 days ago, every 2 days: a day overdue.
        #expect(try cli.run(["care", "schedule", "1", "--task", "water", "--every", "2", "--winter", "2"]).status == 0)

        let missing = try cli.run(["diagnose", photo, "--plant", "99"])
        #expect(missing.status != 0 && missing.stderr.contains("No plant with id 99"))
        #expect(stub.requests.filter { $0.path == "/v2/diseases/identify" }.isEmpty)

        let outcome = try cli.run(["diagnose", photo, "--plant", "1", "--json"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let answer = try #require(try outcome.json() as? [String: Any])
        #expect((answer["plant"] as? [String: Any])?["name"] as? String == "Boston fern")
        let facts = try #require(answer["careFacts"] as? [[String: Any]])
        let texts = facts.compactMap { $0["text"] as? String }
        // The watering 45 days ago is outside the 30 days counted.
        #expect(texts.contains("Watered 2 times in the last 30 days; its schedule waters every 2 days now, about 15 times in 30 days."), "\(texts)")
        #expect(texts.contains("Last repotted on \(repotted), about 2 months ago."), "\(texts)")
        #expect(texts.contains { $0.hasPrefix("Watering is 1 day overdue (due ") }, "\(texts)")
        #expect(texts.contains { $0.hasPrefix("Its spot has low light; the guide's is") })
        #expect(facts.compactMap { $0["kind"] as? String }.contains("light"))
        let text = try cli.run(["diagnose", photo, "--plant", "1"])
        #expect(text.stdout.contains("Things to check about Boston fern  (from its care log; not a diagnosis)"))
    }

    @Test func aSavedDiagnosisIsKeptInThePlantsHistoryWithItsPhotosAndTravelsInExports() async throws {
        let stub = try await PlantNetStub.start()
        defer { Task { await stub.stop() } }
        let cli = try runner(stub)
        defer { cli.cleanUp() }
        let upper = try writePhoto(cli, seed: 21), lower = try writePhoto(cli, seed: 22)
        #expect(try cli.run(["collection", "add", "Boston fern", "--species", "Nephrolepis exaltata"]).status == 0)

        // Refused before anything is sent: --save without a plant, --note without --save.
        let noPlant = try cli.run(["diagnose", upper, "--save"])
        #expect(noPlant.status == 64 && noPlant.stderr.contains("name the plant with --plant ID"), "\(noPlant.stderr)")
        let noSave = try cli.run(["diagnose", upper, "--plant", "1", "--note", "spots"])
        #expect(noSave.status == 64 && noSave.stderr.contains("add --save"), "\(noSave.stderr)")
        #expect(stub.requests.filter { $0.path == "/v2/diseases/identify" }.isEmpty)

        let saved = try cli.run([
            "diagnose", upper, lower, "--organ", "leaf", "--organ", "auto", "--plant", "1", "--save", "--note", "after the cold week",
        ])
        #expect(saved.status == 0, "\(saved.stderr)")
        #expect(saved.stdout.contains("Kept in the history of Boston fern (health record 1, 2 photos)."), "\(saved.stdout)")

        let shown = try cli.run(["collection", "show", "1"])
        #expect(shown.stdout.contains("Diagnosis: Grey mould (BOTRCI) 62 %"), "\(shown.stdout)")
        #expect(shown.stdout.contains("(2 photos) — after the cold week"), "\(shown.stdout)")
        let json = try #require(try cli.run(["collection", "show", "1", "--json"]).json() as? [String: Any])
        let records = try #require(json["healthRecords"] as? [[String: Any]])
        #expect(records.count == 1)
        let record = try #require(records.first)
        #expect(record["note"] as? String == "after the cold week")
        #expect((record["photos"] as? [[String: Any]])?.compactMap { $0["organ"] as? String } == ["leaf", "auto"])
        let candidates = (record["diagnosis"] as? [String: Any])?["candidates"] as? [[String: Any]]
        #expect(candidates?.compactMap { $0["eppoCode"] as? String } == ["BOTRCI", "TETRUR", "ZZSTUB"])
        // The record's photos are stored photos (not the plant's gallery), so they survive and travel.
        #expect((json["photos"] as? [Any])?.isEmpty == true)

        // Exported and imported into another collection: the record comes along once, however often it is imported.
        let archive = cli.home.appendingPathComponent("fern.zip").path
        #expect(try cli.run(["export", archive]).status == 0)
        let other = try runner(stub)
        defer { other.cleanUp() }
        let imported = try other.run(["import", archive, "--json"])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect((try imported.json() as? [String: Any])?["healthRecordsAdded"] as? Int == 1)
        #expect((try other.run(["import", archive, "--json"]).json() as? [String: Any])?["healthRecordsAdded"] as? Int == 0)
        let there = try #require(try other.run(["collection", "show", "1", "--json"]).json() as? [String: Any])
        #expect((there["healthRecords"] as? [[String: Any]])?.first?["note"] as? String == "after the cold week")

        // Removed again: gone from the history; a second removal says there is none.
        let removed = try cli.run(["collection", "health", "remove", "1", "1"])
        #expect(removed.status == 0 && removed.stdout.contains("Removed health record 1 from plant #1."), "\(removed.stderr)")
        #expect(!(try cli.run(["collection", "show", "1"]).stdout.contains("Grey mould")))
        let again = try cli.run(["collection", "health", "remove", "1", "1"])
        #expect(again.status == 1 && again.stderr.contains("plant #1 has no health record 1"), "\(again.stderr)")
    }

    @Test func aDiagnosisKeptWhilePlantNetIsDownWaitsAndTheRecheckFillsItIn() async throws {
        let offline = try RefusingPort()
        defer { offline.release() }
        let cli = try CommandLineRunner(environment: [
            "PLANTGUIDE_PLANTNET_URL": "http://127.0.0.1:\(offline.port)", "PLANTNET_API_KEY": "stub-key", "NO_COLOR": "1",
        ])
        defer { cli.cleanUp() }
        let upper = try writePhoto(cli, seed: 31), lower = try writePhoto(cli, seed: 32)
        #expect(try cli.run(["collection", "add", "Boston fern", "--species", "Nephrolepis exaltata"]).status == 0)

        // Without --save there is nothing to keep: the failure is an error.
        let unsaved = try cli.run(["diagnose", upper, "--plant", "1"])
        #expect(unsaved.status == 1 && unsaved.stderr.contains("error:"), "\(unsaved.stderr)")

        let kept = try cli.run(["diagnose", upper, "--organ", "leaf", "--plant", "1", "--save", "--note", "spots", "--lang", "fr"])
        #expect(kept.status == 0, "\(kept.stderr)")
        #expect(kept.stderr.contains("Pl@ntNet cannot diagnose now"), "\(kept.stderr)")
        #expect(kept.stdout.contains("Things to check about Boston fern"), "\(kept.stdout)")
        #expect(kept.stdout.contains("Kept in the history of Boston fern (health record 1, 1 photo), waiting for Pl@ntNet"), "\(kept.stdout)")
        let json = try cli.run(["diagnose", lower, "--plant", "1", "--save", "--json"])
        #expect(json.status == 0, "\(json.stderr)")
        let waiting = try #require(try json.json() as? [String: Any])
        #expect(waiting["waiting"] as? Bool == true)
        #expect((waiting["healthRecord"] as? [String: Any])?["id"] as? Int == 2)
        #expect((waiting["reason"] as? String)?.isEmpty == false)

        #expect(try cli.run(["collection", "show", "1"]).stdout.contains("Diagnosis: waiting for Pl@ntNet"))
        let listed = try #require(try cli.run(["recheck", "list", "--json"]).json() as? [String: Any])
        let diagnoses = try #require(listed["diagnoses"] as? [[String: Any]])
        #expect(diagnoses.compactMap { $0["id"] as? Int } == [1, 2])
        #expect((diagnoses.first?["waiting"] as? [String: Any])?["language"] as? String == "fr")
        let stillDown = try #require(try cli.run(["recheck", "--json"]).json() as? [String: Any])
        #expect(stillDown["diagnosed"] as? Int == 0 && stillDown["diagnosesWaiting"] as? Int == 2)
        #expect((stillDown["stoppedBecause"] as? String)?.contains("cannot be reached") == true)

        // Pl@ntNet is back: both are sent, each in its language, and their answers join the plant's history.
        let stub = try await PlantNetStub.start(takingOver: offline)
        defer { Task { await stub.stop() } }
        let drained = try cli.run(["recheck"])
        #expect(drained.status == 0, "\(drained.stderr)")
        #expect(drained.stdout.contains("plant 1, health record 1: diagnosis: Grey mould (BOTRCI) 62 %"), "\(drained.stdout)")
        #expect(drained.stdout.contains("diagnosed 2, 0 still waiting"), "\(drained.stdout)")
        let asked = stub.requests.filter { $0.path == "/v2/diseases/identify" }
        #expect(asked.count == 2)
        #expect(asked.compactMap { $0.query["lang"] }.sorted() == ["en", "fr"])
        let shown = try cli.run(["collection", "show", "1"])
        #expect(!shown.stdout.contains("waiting for Pl@ntNet"), "\(shown.stdout)")
        #expect(shown.stdout.contains("Diagnosis: Grey mould (BOTRCI) 62 %  (1 photo) — spots"), "\(shown.stdout)")
        let again = try #require(try cli.run(["recheck", "--json"]).json() as? [String: Any])
        #expect(again["diagnosed"] as? Int == 0)
        #expect(stub.requests.filter { $0.path == "/v2/diseases/identify" }.count == 2)
    }
}
