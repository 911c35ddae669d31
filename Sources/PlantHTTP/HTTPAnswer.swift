import Foundation
import NIOHTTP1

/// A whole HTTP answer: its status, headers and body.
public struct HTTPAnswer: Sendable {
    /// The status code, e.g. 200.
    public var status: Int
    /// The headers as sent.
    public var headers: HTTPHeaders
    /// The body.
    public var body: Data

    /// Creates an answer.
    public init(status: Int, headers: HTTPHeaders, body: Data) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of the header `name` (any case), if sent.
    public func header(_ name: String) -> String? {
        headers.first(name: name)
    }
}
