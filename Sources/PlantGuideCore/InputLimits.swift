/// The size limits on everything a person or a client can send PlantGuide, stated once.
///
/// Every surface checks its input against these numbers before doing work whose cost grows with the
/// input: the catalog search refuses longer queries, the store refuses longer names and notes, the
/// server refuses larger URLs, forms and JSON bodies with a 4xx answer that names the limit, and the
/// command line exits with a message that names it. Input over a limit is refused, never silently
/// truncated, so what is stored or searched is always what was sent.
///
/// The numbers are generous for real use: the longest name in the bundled catalog has 48 characters
/// and 5 words.
public enum InputLimits {
    /// Characters in one catalog search query.
    public static let queryCharacters = 200
    /// Words in one catalog search query.
    public static let queryWords = 12
    /// Characters in a plant's scientific or free-text name.
    public static let plantNameCharacters = 200
    /// Characters in a plant's nickname.
    public static let nicknameCharacters = 100
    /// Characters in a room's name.
    public static let roomCharacters = 100
    /// Characters in a plant's notes or a care note.
    public static let noteCharacters = 2_000
    /// Bytes of a form body that carries no file (log-in, care, settings, save to collection).
    public static let formBodyBytes = 64 * 1024
    /// Bytes of one text field of a form.
    public static let formFieldBytes = 16 * 1024
    /// Parts of one form: fields and files of a `multipart/form-data` body, pairs of a URL-encoded one.
    public static let formParts = 32
    /// Characters of a multipart boundary: at most 70 (RFC 2046, section 5.1.1).
    public static let boundaryCharacters = 70
    /// Bytes of a JSON request body.
    public static let jsonBodyBytes = 64 * 1024
    /// Bytes of a request's URL (path and query).
    public static let urlBytes = 8 * 1024

    /// Whether `text` has more than `limit` characters, in time bounded by `limit` whatever its length.
    ///
    /// Characters are counted as Unicode code points, as JSON Schema's `maxLength` (the OpenAPI document's) counts
    /// them: a letter with a pile of combining marks is one letter on screen but many code points, and must not slip
    /// past a limit the API documents.
    public static func exceeds(_ text: some StringProtocol, characters limit: Int) -> Bool {
        // A code point is at least one UTF-8 byte, so a short byte count settles it without walking the text.
        text.utf8.count > limit && text.unicodeScalars.prefix(limit + 1).count > limit
    }

    /// The sentence that refuses a text over a limit, e.g. "The nickname is longer than 100 characters."
    public static func tooLong(_ what: String, characters limit: Int) -> String {
        "The \(what) is longer than \(limit) characters."
    }

    /// `25 MB`, `64 KB`, `512 bytes`: a limit as people read it.
    public static func bytes(_ count: Int) -> String {
        if count >= 1_048_576, count % 1_048_576 == 0 { return "\(count / 1_048_576) MB" }
        if count >= 1024, count % 1024 == 0 { return "\(count / 1024) KB" }
        return "\(count) bytes"
    }
}
