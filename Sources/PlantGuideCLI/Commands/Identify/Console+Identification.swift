import Foundation
import PlantGuideCore

extension Console {
    /// ` 72.4 % ██████████████░░░░░░` coloured by confidence: green > 70 %, yellow 40–70 %, red < 40 %.
    func confidenceText(_ confidence: Double) -> String {
        let filled = Int((min(1, max(0, confidence)) * 20).rounded())
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: 20 - filled)
        let colour: Style = confidence > 0.7 ? .green : confidence >= 0.4 ? .yellow : .red
        return style(String(format: "%5.1f %%", confidence * 100) + " " + bar, colour)
    }

    func printIdentification(_ identification: Identification, photos: [String], threshold: Double) {
        let names = photos.map { ($0 as NSString).lastPathComponent }.joined(separator: ", ")
        let total = identification.timings.values.reduce(0, +)
        print(style(names, .bold) + style("  on-device model \(identification.model ?? "?"), \(String(format: "%.0f", total)) ms", .dim))
        for prediction in identification.predictions {
            let rank = String(prediction.rank).leftPadded(to: 3)
            var line = "\(rank). \(confidenceText(prediction.confidence))  \(style(prediction.scientificName, .bold))"
            if !prediction.commonNames.isEmpty { line += " — " + prediction.commonNames.prefix(3).joined(separator: ", ") }
            print(line)
        }
        if identification.uncertain {
            print(style(
                "Uncertain: the best match is below \(String(format: "%.0f", threshold * 100)) %. "
                    + "Try a sharper photo of a leaf or flower, or several photos of the same plant.", .yellow))
        }
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: " ", count: max(0, width - count)) + self
    }
}
