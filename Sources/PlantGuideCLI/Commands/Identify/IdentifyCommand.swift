import ArgumentParser
import Foundation
import PlantClassifier
import PlantGuideCore
import PlantIdentification

/// `plantguide identify PHOTO…`: what plant is this? On the device, with Pl@ntNet, or both.
struct IdentifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "identify",
        abstract: "Identify a plant from 1–5 photos of it.",
        discussion: """
            Strategies: on-device (offline), api (Pl@ntNet only), on-device-first (the default: Pl@ntNet \
            only when the device is unsure) and parallel (both at once, Pl@ntNet preferred). When \
            Pl@ntNet cannot be reached or its daily quota is used up, the device answers instead; \
            with --strategy api that is an error. Pl@ntNet answers are cached for 7 days by photo.

            Pl@ntNet needs a free API key from https://my.plantnet.org: set PLANTNET_API_KEY or run \
            `plantguide config set-api-key`. PLANTGUIDE_PLANTNET_URL points at another server.

            Examples:
              plantguide identify leaf.jpg
              plantguide identify leaf.jpg flower.jpg --organ leaf --organ flower --strategy api
              plantguide identify plant.heic --strategy parallel --lang fr --json
            """
    )

    @Argument(help: "Photos of one plant (JPEG, PNG, WebP or HEIC).")
    var photos: [String]

    @OptionGroup var hybrid: HybridIdentify.Options

    @OptionGroup var output: OutputOptions

    func validate() throws {
        try hybrid.validate(photoCount: photos.count)
    }

    func run() async throws {
        let console = Console()
        do {
            let (result, quota) = try await HybridIdentify.run(
                photoPaths: photos, options: hybrid, onDevice: try installedModel(), console: console
            )
            if output.json {
                try console.printJSON(HybridIdentify.Output(result, quota: quota))
            } else {
                HybridIdentify.printText(result, quota: quota, console: console)
            }
        } catch let error as HybridError {
            console.warn("error: \(error)")
            throw ExitCode(1)
        }
    }

    /// The installed on-device model, if any (merging the classifier and Pl@ntNet branches).
    private func installedModel() throws -> OnDeviceIdentifier? {
        guard let url = ModelStore(dataDirectory: .resolve()).defaultModel() else { return nil }
        let classifier = try Classifier(contentsOf: url, threads: ProcessInfo.processInfo.activeProcessorCount)
        return .live(classifier: classifier, threshold: hybrid.threshold)
    }
}
