import Foundation
import PlantGuideTestSupport
import Testing

/// `plantguide notify`: channels added, listed without their secrets, tested, and the day's digest sent by `notify run`
/// to a receiver on 127.0.0.1, once.
@Suite struct NotifyCommandTests {
    @Test func aDigestIsSentOnceByNotifyRunAndSecretsAreNeverPrinted() throws {
        var runner = try collectionRunner(now: "2026-06-01T09:00:00Z")
        defer { runner.cleanUp() }
        let ntfy = try LoopbackReceiver()
        _ = try runner.jsonObject(["collection", "add", "Boston fern", "--room", "Bathroom", "--json"])
        #expect(try runner.run(["care", "done", "1", "water", "--date", "2026-05-25"]).status == 0)

        // Loopback is refused unless local targets are allowed, and nothing is added.
        let refused = try runner.run(["notify", "add", "ntfy", ntfy.url("/plants-7f3a")])
        #expect(refused.status != 0 && refused.stderr.contains("PLANTGUIDE_ALLOW_LOCAL_TARGETS"))
        runner.environment["PLANTGUIDE_ALLOW_LOCAL_TARGETS"] = "1"
        #expect(try runner.run(["notify", "add", "ntfy", ntfy.url("/t"), "--at", "25:00"]).status != 0)
        #expect(try runner.run(["notify", "add", "ntfy", ntfy.url("/t"), "--token-env", "NO_SUCH_VARIABLE"]).status != 0)
        #expect(try runner.jsonArray(["notify", "channels", "--json"]).isEmpty)

        runner.environment["NTFY_TOKEN"] = "tk_very_secret"
        let added = try runner.run(["notify", "add", "ntfy", ntfy.url("/plants-7f3a"), "--at", "8:30", "--token-env", "NTFY_TOKEN"])
        #expect(added.status == 0, "\(added.stderr)")
        let listed = try runner.run(["notify", "channels"])
        for output in [added.stdout, listed.stdout, try runner.run(["notify", "channels", "--json"]).stdout] {
            #expect(!output.contains("tk_very_secret") && !output.contains("7f3a"), "\(output)")
        }
        #expect(listed.stdout.contains("at 08:30") && listed.stdout.contains("token set"))

        // A test message arrives with the token; nothing is recorded as sent.
        #expect(try runner.run(["notify", "test", "1"]).status == 0)
        #expect(ntfy.requests.first?.headers["authorization"] == "Bearer tk_very_secret")

        // Before 08:30 UTC (the household's time zone is the environment's): not yet. A dry run then sends nothing.
        let early = try runner.jsonArray(["notify", "run", "--now", "2026-06-01T08:00:00Z", "--json"])
        #expect(early.first?["state"] as? String == "notYet")
        let dry = try runner.jsonArray(["notify", "run", "--now", "2026-06-01T08:30:00Z", "--dry-run", "--json"])
        #expect(dry.first?["state"] as? String == "wouldSend" && dry.first?["tasks"] as? Int == 1)
        #expect(ntfy.requests.count == 1)
        let sent = try runner.run(["notify", "run", "--now", "2026-06-01T08:30:00Z"])
        #expect(sent.status == 0 && sent.stdout.contains("sent (1 task)"), "\(sent.stdout)\(sent.stderr)")
        #expect(ntfy.requests.count == 2)
        #expect(ntfy.requests.last?.text.contains("Bathroom\n- Water Boston fern") == true)
        let again = try runner.run(["notify", "run", "--now", "2026-06-01T10:00:00Z"])
        #expect(again.stdout.contains("done for 2026-06-01"))
        #expect(ntfy.requests.count == 2)

        // A target that fails makes `notify run` fail, saying why; removing a channel that is not there is an error.
        ntfy.answer([500])
        let failed = try runner.run(["notify", "run", "--now", "2026-06-02T08:30:00Z"])
        #expect(failed.status != 0 && failed.stdout.contains("failed: the target answered 500"))
        #expect(try runner.run(["notify", "remove", "9"]).status != 0)
        #expect(try runner.run(["notify", "remove", "1"]).status == 0)
        #expect(try runner.run(["notify", "run"]).stdout.contains("No reminder channels are on"))
    }

    @Test func aMembersChannelsListTheirTasksAtTheirHourAndCareDoneByKeepsWhoDidIt() throws {
        var runner = try collectionRunner(now: "2026-06-01T09:00:00Z")
        defer { runner.cleanUp() }
        runner.environment["PLANTGUIDE_ALLOW_LOCAL_TARGETS"] = "1"
        let alice = try LoopbackReceiver(), bob = try LoopbackReceiver()
        for name in ["alice", "bob"] {
            #expect(try runner.run(["user", "add", name], input: Data("correct horse battery\n".utf8)).status == 0)
        }
        _ = try runner.jsonObject(["collection", "add", "Boston fern", "--room", "Bathroom", "--json"])
        #expect(try runner.run(["care", "done", "1", "water", "--date", "2026-05-25"]).status == 0)

        // Channels of members; an unknown member, bad quiet hours, or a schedule for someone without channels, refused.
        #expect(try runner.run(["notify", "add", "webhook", alice.url("/a"), "--member", "nobody"]).status != 0)
        #expect(try runner.run(["notify", "add", "webhook", alice.url("/a"), "--member", "alice", "--quiet", "22:00"]).status != 0)
        #expect(try runner.run(["notify", "schedule", "alice", "--at", "07:00"]).status != 0)
        let added = try runner.run(["notify", "add", "webhook", alice.url("/a"), "--member", "alice", "--at", "08:30", "--quiet", "22:00-07:00"])
        #expect(added.status == 0 && added.stdout.contains("for alice") && added.stdout.contains("quiet 22:00-07:00"), "\(added.stderr)")
        #expect(try runner.run(["notify", "add", "webhook", bob.url("/b"), "--member", "bob", "--at", "08:30"]).status == 0)
        let schedule = try runner.jsonObject(["notify", "schedule", "alice", "--at", "9:15", "--json"])
        #expect(schedule["timeOfDay"] as? String == "09:15" && schedule["quietHours"] as? String == "22:00-07:00")
        #expect(schedule["channels"] as? Int == 1)

        // The fern is bob's: at 09:15 alice's digest has nothing, bob's (08:30) lists it.
        #expect(try runner.run(["care", "assign", "1", "--to", "nobody"]).status != 0)
        #expect(try runner.run(["care", "assign", "1", "--to", "bob", "--turns"]).status != 0)
        #expect(try runner.run(["care", "assign", "1", "--to", "bob"]).stdout.contains("looked after by bob"))
        let results = try runner.jsonArray(["notify", "run", "--now", "2026-06-01T09:15:00Z", "--json"])
        #expect(results.map { $0["state"] as? String } == ["nothingDue", "sent"])
        #expect(alice.requests.isEmpty && bob.requests.count == 1)

        // Bob waters it; with turns, the next watering is alice's.
        #expect(try runner.run(["care", "done", "1", "water", "--by", "nobody"]).status != 0)
        let done = try runner.jsonObject(["care", "done", "1", "water", "--by", "bob", "--json"])
        #expect((done["event"] as? [String: Any])?["recordedBy"] as? String == "bob")
        #expect(try runner.run(["care", "assign", "1", "--turns"]).status == 0)
        let list = try runner.jsonArray(["care", "assign", "--list", "--json"])
        #expect(list.first?["turns"] as? Bool == true && (list.first?["next"] as? [String: String])?["water"] == "alice")

        // The calendar's alarm at a chosen hour.
        let calendar = try runner.run(["care", "ics", "--alarm", "07:30"])
        #expect(calendar.stdout.contains("TRIGGER;RELATED=START:PT7H30M"))
        #expect(try runner.run(["care", "ics", "--alarm", "7.30"]).status != 0)
    }
}
