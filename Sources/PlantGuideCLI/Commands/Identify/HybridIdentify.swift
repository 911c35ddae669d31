import ArgumentParser
import Foundation
import PlantCatalog
import PlantClassifier
import PlantGuideCore
import PlantGuideLive
import PlantIdentification
import PlantImaging
import PlantNetAPI

/// The hybrid half of `plantguide identify`, kept apart from the command so the on-device `identify` of the
/// classifier work can share it: options, wiring, running, and the text and JSON output.
enum HybridIdentify {
    /// `--strategy`, `--organ`, `--project`, `--lang`, `--verbose`.
    struct Options: ParsableArguments {
        @Option(help: "on-device, api, on-device-first (API only when unsure) or parallel.")
        var strategy: IdentificationStrategy = .onDeviceFirst

        @Option(name: .customLong("organ"), help: "Organ shown by each photo, in order: leaf, flower, fruit, bark, auto, habit, other.")
        var organs: [PlantNetOrgan] = []

        @Option(help: "Pl@ntNet flora to search, e.g. all, weurope, k-world-flora.")
        var project = "all"

        @Option(name: .customLong("lang"), help: "Language of common names, e.g. en, fr, de.")
        var language = "en"

        @Option(help: "Below this confidence an answer is uncertain (and on-device-first asks Pl@ntNet).")
        var threshold = 0.7

        @Flag(help: "Show each Pl@ntNet request on standard error (the API key is hidden).")
        var verbose = false

        @Option(
            name: .customLong("on-device-timeout"),
            help: "Seconds the on-device model may take before it is given up (Pl@ntNet then answers, if it can)."
        )
        var onDeviceTimeout = OnDeviceIdentifier.defaultTimeout.inSeconds

        func validate(photoCount: Int) throws {
            guard (1...PhotoUploadRules.maximumPhotos).contains(photoCount) else {
                throw ValidationError("Give 1 to \(PhotoUploadRules.maximumPhotos) photos of the same plant.")
            }
            guard organs.count <= photoCount else {
                throw ValidationError("\(organs.count) --organ values for \(photoCount) photo(s): give at most one per photo.")
            }
            guard (0...1).contains(threshold) else { throw ValidationError("--threshold must be between 0 and 1.") }
            guard !project.isEmpty, project.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else {
                throw ValidationError("--project '\(project)' is not a project name (try all, weurope, k-world-flora).")
            }
            // Pl@ntNet's organ rules, kept in one place, before anything is read or sent.
            do throws(PlantNetError) {
                try PlantNetRequestRules.validate(organs: organs + Array(repeating: PlantNetOrgan.auto, count: photoCount - organs.count))
            } catch {
                throw ValidationError("\(error)")
            }
        }

        var plantNetOptions: PlantNetOptions { LivePlantNet.options(project: project, language: language) }

        /// What each of `photoCount` photos shows as the answer names it: the `--organ` values in order, `auto` for the
        /// rest.
        func answerOrgans(photoCount: Int) -> [PlantNetOrgan] {
            Array((organs + Array(repeating: PlantNetOrgan.auto, count: max(0, photoCount - organs.count))).prefix(photoCount))
        }

        /// `--on-device-timeout` as a duration.
        var onDeviceLimit: Duration { .seconds(onDeviceTimeout) }
    }

    /// Wires the hybrid identifier: the given on-device classifier, Pl@ntNet when a key is configured, and
    /// the catalog for enrichment (skipped, with a warning, when it cannot be read).
    /// - Parameters:
    ///   - onDevice: the live classifier, or `nil` when no model is installed.
    ///   - onDeviceMissingReason: what to tell the person when a strategy needs the missing classifier.
    ///   - top: how many candidates the on-device classifier reports.
    static func makeIdentifier(
        options: Options, onDevice: OnDeviceIdentifier?, onDeviceMissingReason: String, top: Int,
        console: Console, setup: PlantNetSetup
    ) -> HybridIdentifier {
        var onlineMissing = "no Pl@ntNet API key is configured."
        var online: OnlineIdentifier?
        switch setup.service(console: console, verbose: options.verbose) {
        case .success(let service): online = .live(service: service, prepare: LivePlantNet.prepare)
        case .failure(let error): onlineMissing = error.description
        }
        return HybridIdentifier(
            onDevice: onDevice, online: online, catalog: nil, threshold: options.threshold, top: top,
            onDeviceMissingReason: onDeviceMissingReason, onlineMissingReason: onlineMissing,
            enricher: LiveEnrichment.make(language: options.language, console: console, context: setup.context)
        )
    }

    /// Reads the photos of one plant and identifies it.
    static func run(
        photoPaths: [String], options: Options, identifier: HybridIdentifier
    ) async throws -> HybridResult {
        var photos: [Data] = []
        for path in photoPaths { photos.append(try readPhoto(path)) }
        return try await identifier.identify(
            photos: photos, organs: options.organs, strategy: options.strategy, options: options.plantNetOptions
        )
    }

    /// The bytes of a photo named on the command line, checked as every upload is (``PhotoUploadRules``): not empty,
    /// and a photo by its content.
    static func readPhoto(_ path: String) throws(PhotoError) -> Data {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path), options: .mappedIfSafe)
        } catch {
            let reason = FileManager.default.fileExists(atPath: path) ? "it cannot be opened" : "no such file"
            throw PhotoError(path: path, reason: reason)
        }
        do throws(PhotoUploadError) {
            _ = try PhotoUploadRules.check(data, named: path)
        } catch {
            switch error {
            case .empty: throw PhotoError(path: path, reason: "the file is empty")
            default: throw PhotoError(path: path, reason: "it is none of the photo formats read (\(ImageFormat.acceptedNames))")
            }
        }
        return data
    }

    /// A photo named on the command line could not be read.
    struct PhotoError: Error, CustomStringConvertible {
        var path: String
        var reason: String

        var description: String { "Cannot read the photo '\(path)': \(reason)." }
    }

    /// Prints the result for people: the photos and the source, then each candidate with a confidence bar
    /// (green above 70 %, yellow from 40 %, red below), whether the catalog knows it, and what to do when
    /// the answer is uncertain.
    static func printText(
        _ result: HybridResult, quota: QuotaStatus, photos: [String], threshold: Double, top: Int, console: Console,
        care: (Int64) -> String? = { _ in nil }
    ) {
        let sourceName = switch result.source {
        case .onDevice: "on-device model \(result.preferred.model ?? "")"
        case .plantNetAPI: "Pl@ntNet"
        case .cache: "Pl@ntNet (cached answer)"
        }
        for note in result.notes { console.warn(console.style("note: \(note)", .yellow)) }
        if result.notAPlant {
            console.print("Pl@ntNet found no plant in this photo (\"Species not found\").")
        }
        let names = photos.map { ($0 as NSString).lastPathComponent }.joined(separator: ", ")
        if !result.preferred.predictions.isEmpty {
            console.print(console.style(names, .bold)
                + console.style(String(format: "  %@, %.0f ms", sourceName, result.totalMilliseconds), .dim))
        }
        for match in result.collectionMatches ?? [] { console.print(console.matchLine(match, care: care(match.plantId))) }
        for (position, prediction) in result.preferred.predictions.prefix(top).enumerated() {
            printCandidate(prediction, detailed: position < 3, console: console)
        }
        if let count = result.preferred.photoCount, count > 1 {
            let agreeing = result.preferred.agreeingPhotos.map { ", \($0) of \(count) had the best species first on their own" } ?? ""
            console.print(console.style("\(count) photos combined (mean of their scores)\(agreeing).", .dim))
        }
        if result.preferred.uncertain, !result.preferred.predictions.isEmpty {
            let reason = result.preferred.uncertainReason ?? "the best match is below \(String(format: "%.0f", threshold * 100)) %."
            console.print(console.style("Uncertain: " + reason, .yellow))
        }
        if !result.suggestions.isEmpty {
            console.print("Did you mean:")
            for plant in result.suggestions.prefix(5) { console.print(console.plantLine(plant)) }
        }
        if let other = result.source == .onDevice ? nil : result.onDevice, let best = other.best {
            console.print(console.style(
                String(format: "On-device model said: %@ (%.1f%%)", best.scientificName, best.confidence * 100), .dim
            ))
        }
        // Quota is news only when Pl@ntNet was asked: an on-device answer costs none.
        guard result.usedPlantNet else { return }
        if let remaining = result.remainingRequests ?? quota.remaining {
            console.print(console.style("Pl@ntNet requests left today: \(remaining)", .dim))
        }
        if quota.level.isWarning {
            console.warn(console.style(QuotaText.warning(quota), .yellow))
        }
    }
}

extension HybridIdentify {
    /// One candidate: the common name first (or the scientific name with the genus-level name, marked), then
    /// family and catalog details, the care summary and related catalog plants for the leading candidates.
    static func printCandidate(_ prediction: SpeciesPrediction, detailed: Bool, console: Console) {
        let rank = String(repeating: " ", count: max(0, 3 - String(prediction.rank).count)) + "\(prediction.rank)"
        var line = "\(rank). \(console.confidenceText(prediction.confidence))  "
        switch (prediction.commonNameLevel, prediction.commonNames.first) {
        case (.species?, let name?):
            line += console.style(capitalised(name), .bold) + " — " + prediction.scientificName
        case (.genus?, let name?):
            line += console.style(prediction.scientificName, .bold) + " — " + name + console.style(" (genus name)", .dim)
        default:
            line += console.style(prediction.scientificName, .bold)
        }
        if prediction.source == .collection { line += console.style("  (from your confirmed photos)", .green) }
        console.print(line)
        var details: [String] = []
        if let family = prediction.family { details.append(family) }
        if prediction.commonNameLevel == .species, prediction.commonNames.count > 1 {
            details.append("also " + prediction.commonNames.dropFirst().prefix(2).joined(separator: ", "))
        }
        if let category = prediction.category, prediction.inCatalog { details.append("in the catalog: \(category.rawValue)") }
        let indent = "              "
        if !details.isEmpty { console.print(indent + console.style(details.joined(separator: " · "), .dim)) }
        guard detailed else { return }
        if let care = prediction.careSummary { console.print(indent + console.style("Care: \(care)", .dim)) }
        if !prediction.relatedCatalogPlants.isEmpty {
            let names = prediction.relatedCatalogPlants.prefix(4).map { plant in
                plant.commonNames.first.map { "\(plant.scientificName) (\($0))" } ?? plant.scientificName
            }
            console.print(indent + console.style("Related plants in the catalog: " + names.joined(separator: ", "), .dim))
        }
    }

    static func capitalised(_ name: String) -> String {
        name.prefix(1).uppercased() + name.dropFirst()
    }
}

/// Wording for quota warnings.
enum QuotaText {
    static func warning(_ status: QuotaStatus) -> String {
        let reset = QuotaText.format(status.resetsAt)
        if status.isBlocked {
            return "warning: the Pl@ntNet quota is used up until \(reset); identification falls back to the device."
        }
        return "warning: only \(counted(status.remaining ?? 0, "Pl@ntNet request")) left today (resets \(reset))."
    }

    static func format(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }
}

extension HybridResult {
    /// Whether Pl@ntNet answered this identification (or its cache did), so its quota is worth showing.
    var usedPlantNet: Bool { online != nil }
}
