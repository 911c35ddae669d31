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

}

