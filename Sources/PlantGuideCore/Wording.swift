/// A count with its noun in the right number, for messages people read: "1 request", "3 requests",
/// "1 care event". English only; the plural is the singular plus "s" unless given.
public func counted(_ count: Int, _ singular: String, plural: String? = nil) -> String {
    "\(count) \(count == 1 ? singular : plural ?? singular + "s")"
}

/// `text` as one shell word in double quotes, so a suggested command can be pasted as it is:
/// `plantguide search "snake plant"`. The characters a shell still reads inside double quotes are escaped.
public func shellQuoted(_ text: String) -> String {
    var quoted = "\""
    for character in text {
        if character == "\"" || character == "\\" || character == "$" || character == "`" { quoted.append("\\") }
        quoted.append(character)
    }
    return quoted + "\""
}
