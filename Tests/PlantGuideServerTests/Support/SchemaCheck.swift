import Foundation

/// Checks a decoded JSON value against a schema of the OpenAPI document, for the keywords the document uses: `type`
/// (one or a list, `null` included), `enum`, `required`, `properties`, `items`, `additionalProperties` (a schema),
/// `oneOf`, `$ref`, `minimum`, `maximum`, `maxItems` and `pattern`. Each problem is a path and what is wrong there.
struct SchemaCheck {
    let document: [String: Any]

    func problems(_ value: Any, against schema: [String: Any], at path: String = "$") -> [String] {
        if let reference = schema["$ref"] as? String {
            let name = reference.replacingOccurrences(of: "#/components/schemas/", with: "")
            guard let target = ((document["components"] as? [String: Any])?["schemas"] as? [String: Any])?[name] as? [String: Any]
            else { return ["\(path): \(reference) does not resolve"] }
            return problems(value, against: target, at: path)
        }
        if let choices = schema["oneOf"] as? [[String: Any]] {
            let matching = choices.filter { problems(value, against: $0, at: path).isEmpty }.count
            return matching == 1 ? [] : ["\(path): matches \(matching) of oneOf's \(choices.count) schemas"]
        }
        var found: [String] = []
        if let types = (schema["type"] as? [String]) ?? (schema["type"] as? String).map({ [$0] }),
            !types.contains(where: { Self.isOfType(value, $0) })
        {
            return ["\(path): \(Self.describe(value)) is not \(types.joined(separator: " or "))"]
        }
        if let choices = schema["enum"] as? [Any], !choices.contains(where: { Self.same($0, value) }) {
            found.append("\(path): \(Self.describe(value)) is not one of \(choices)")
        }
        if let number = value as? Double, !(value is Bool) {
            if let minimum = schema["minimum"] as? Double, number < minimum { found.append("\(path): \(number) < \(minimum)") }
            if let maximum = schema["maximum"] as? Double, number > maximum { found.append("\(path): \(number) > \(maximum)") }
        }
        if let text = value as? String, let pattern = schema["pattern"] as? String,
            text.range(of: pattern, options: .regularExpression) == nil
        {
            found.append("\(path): \"\(text)\" does not match \(pattern)")
        }
        if let object = value as? [String: Any] {
            for key in schema["required"] as? [String] ?? [] where object[key] == nil {
                found.append("\(path): the required key \(key) is missing")
            }
            let properties = schema["properties"] as? [String: Any] ?? [:]
            for (key, item) in object {
                if let property = properties[key] as? [String: Any] {
                    found += problems(item, against: property, at: "\(path).\(key)")
                } else if let additional = schema["additionalProperties"] as? [String: Any] {
                    found += problems(item, against: additional, at: "\(path).\(key)")
                } else if schema["properties"] != nil {
                    found.append("\(path): the key \(key) is not documented")
                }
            }
        }
        if let array = value as? [Any] {
            if let maximum = schema["maxItems"] as? Int, array.count > maximum { found.append("\(path): \(array.count) items > \(maximum)") }
            if let items = schema["items"] as? [String: Any] {
                for (index, item) in array.enumerated() { found += problems(item, against: items, at: "\(path)[\(index)]") }
            }
        }
        return found
    }

    private static func isOfType(_ value: Any, _ type: String) -> Bool {
        switch type {
        case "null": value is NSNull
        case "boolean": isBool(value)
        case "integer": !isBool(value) && (value as? NSNumber).map { $0.doubleValue == $0.doubleValue.rounded() } == true
        case "number": !isBool(value) && value is NSNumber
        case "string": value is String
        case "array": value is [Any]
        case "object": value is [String: Any]
        default: false
        }
    }

    private static func isBool(_ value: Any) -> Bool {
        // JSONSerialization keeps true and false as booleans: their type code is "c" (numbers are "i", "q" or "d").
        guard let number = value as? NSNumber else { return false }
        return String(cString: number.objCType) == "c"
    }

    private static func same(_ choice: Any, _ value: Any) -> Bool {
        if choice is NSNull || value is NSNull { return choice is NSNull && value is NSNull }
        if let choice = choice as? String { return choice == value as? String }
        return "\(choice)" == "\(value)"
    }

    private static func describe(_ value: Any) -> String {
        let text = "\(value)"
        return text.count > 60 ? String(text.prefix(60)) + "…" : text
    }
}
