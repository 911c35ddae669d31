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
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard Self.formDecoded(parts[0]) == name else { continue }
            return parts.count > 1 ? Self.formDecoded(parts[1]) : ""
        }
        return nil
    }

    private static func formDecoded(_ text: Substring) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }
}
