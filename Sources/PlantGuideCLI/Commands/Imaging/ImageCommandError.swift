/// Failures of the `image` commands outside the image itself (files that cannot be read or written).
enum ImageCommandError: Error, CustomStringConvertible {
    case unreadable(path: String, reason: String)
    case unwritable(path: String, reason: String)

    var description: String {
        switch self {
        case .unreadable(let path, let reason): "Cannot read \(path): \(reason)"
        case .unwritable(let path, let reason): "Cannot write \(path): \(reason)"
        }
    }
}
