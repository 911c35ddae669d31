import ArgumentParser
import Foundation
import PlantNetStub

/// `plantguide dev plantnet-stub`: a local stand-in for the Pl@ntNet API, for demos and manual runs.
struct PlantNetStubCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plantnet-stub",
        abstract: "Run a local Pl@ntNet stand-in on 127.0.0.1 until interrupted.",
        discussion: """
            It checks the key, the multipart body and the organs like the real service and always \
            answers Monstera deliciosa (or 404 "Species not found" with --not-a-plant). Its disease service \
            (POST /v2/diseases/identify, GET /v2/diseases) answers grey mould (BOTRCI), a spider mite named only \
            by the list (TETRUR) and a code no list has (ZZSTUB), or nothing with --no-disease; both services \
            count against one quota.

            Example:
              plantguide dev plantnet-stub --port 8089 &
              PLANTGUIDE_PLANTNET_URL=http://127.0.0.1:8089 PLANTNET_API_KEY=stub-key \\
                plantguide identify leaf.jpg --strategy api
              PLANTGUIDE_PLANTNET_URL=http://127.0.0.1:8089 PLANTNET_API_KEY=stub-key plantguide diagnose spots.jpg
            """
    )

    @Option(help: "Port to listen on (0: any free port).")
    var port = 8089

    @Option(help: "The API key the stub accepts.")
    var key = "stub-key"

    @Option(help: "Answer 429 after this many identifications.")
    var quota = 500

    @Option(help: "Delay every answer by this many milliseconds.")
    var latency = 0

    @Flag(help: "Answer every identification with 404 \"Species not found\".")
    var notAPlant = false

    @Flag(help: "Answer every diagnosis with no disease found.")
    var noDisease = false

    func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be between 0 and 65535.") }
        guard quota >= 0, latency >= 0 else { throw ValidationError("--quota and --latency cannot be negative.") }
    }

    func run() async throws {
        var behaviour = PlantNetStubBehaviour()
        behaviour.apiKey = key
        behaviour.quotaLimit = quota
        behaviour.latency = .milliseconds(latency)
        behaviour.notAPlant = notAPlant
        if noDisease { behaviour.diseases = [] }
        let stub = try await PlantNetStub.start(behaviour: behaviour, port: port)
        // The stub's key is a test value the user chose on the command line, not a secret.
        Console().print("Pl@ntNet stub listening on \(stub.baseURL.absoluteString) (key: \(key)). Ctrl-C stops it.")
        await stub.waitUntilStopped()
    }
}
