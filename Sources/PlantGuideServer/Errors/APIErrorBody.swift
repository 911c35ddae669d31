/// The JSON body of every error answer of the API: `{"status": 413, "message": "…"}`.
public struct APIErrorBody: Codable, Sendable, Equatable {
    /// The HTTP status code, repeated for clients that only see the body.
    public var status: Int
    /// What went wrong, in words a person can act on.
    public var message: String

    /// Creates an error body.
    public init(status: Int, message: String) {
        self.status = status
        self.message = message
    }
}
