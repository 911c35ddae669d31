import Foundation
import Hummingbird

extension Request {
    /// The value of the query parameter `name` as browsers and HTTP clients encode it
    /// (`application/x-www-form-urlencoded`): `+` is a space and `%XX` a byte. The first occurrence wins.
    ///
    /// `uri.queryParameters` keeps a `+` as it is, so `?category=Flowering+Houseplant` would be refused and
    /// `?q=aloe+vera` searched for `aloe+vera`.
    func queryValue(_ name: String) -> String? {
        guard let query = uri.query else { return nil }
        // Walks the pairs without splitting the query into arrays: routes ask for several names per request.
        var rest = Substring(query)
        while !rest.isEmpty {
            let pair: Substring
            if let end = rest.utf8.firstIndex(of: UInt8(ascii: "&")) {
                pair = rest[..<end]
                rest = rest[rest.utf8.index(after: end)...]
            } else {
                pair = rest
                rest = ""
            }
            guard !pair.isEmpty else { continue }
            let key: Substring, value: Substring?
            if let equals = pair.utf8.firstIndex(of: UInt8(ascii: "=")) {
                key = pair[..<equals]
                value = pair[pair.utf8.index(after: equals)...]
            } else {
                key = pair
                value = nil
            }
            guard Self.needsDecoding(key) ? Self.formDecoded(key) == name : key == name else { continue }
            return value.map(Self.formDecoded) ?? ""
        }
        return nil
    }

    private static func needsDecoding(_ text: Substring) -> Bool {
        text.utf8.contains { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "%") }
    }

    private static func formDecoded(_ text: Substring) -> String {
        // Most names and values need no decoding; Foundation's replacing and decoding cost more than the search.
        if !needsDecoding(text) { return String(text) }
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }
}
