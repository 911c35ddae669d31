import ArgumentParser
import PlantGuideCore

extension PlantCategory: ExpressibleByArgument {
    public init?(argument: String) {
        self.init(userInput: argument)
    }

    public static var allValueStrings: [String] { allCases.map(\.argumentName) }
}

/// Validates `--category` with an error that lists every valid value, instead of a bare "invalid".
func parseCategory(_ text: String?) throws -> PlantCategory? {
    guard let text else { return nil }
    guard let category = PlantCategory(userInput: text) else {
        throw ValidationError(
            "Unknown category '\(text)'. Valid categories: "
                + PlantCategory.allCases.map(\.argumentName).joined(separator: ", ") + "."
        )
    }
    return category
}
