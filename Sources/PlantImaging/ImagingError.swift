import PlantGuideCore

/// Everything that can go wrong while reading, preparing or re-encoding a photo. Each case says what
/// is wrong with the input, so a caller can tell the user (or map it to an exit code / HTTP status).
public enum ImagingError: Error, Sendable, Equatable {
    /// The file has no bytes at all.
    case empty
    /// The bytes start with no signature of a supported format (JPEG, PNG, WebP, HEIC).
    case unrecognizedFormat
    /// The file ends before the image does.
    case truncated(ImageFormat)
    /// The data is damaged or not really an image of this format; `reason` comes from the decoder.
    case corrupt(ImageFormat, reason: String)
    /// A valid file using a feature PlantGuide does not read (e.g. an animated WebP).
    case unsupported(ImageFormat, reason: String)
    /// The shorter side is below the minimum that is useful for identification.
    case tooSmall(width: Int, height: Int, minimumShortSide: Int)
    /// The header claims more pixels than the budget (protects against decompression bombs).
    case tooLarge(width: Int, height: Int, maximumPixels: Int)
    /// The file is larger than the byte budget.
    case fileTooLarge(bytes: Int, maximumBytes: Int)
    /// Memory for the pixels could not be had.
    case outOfMemory
    /// Re-encoding failed (JPEG encoder error, or the result could not be made small enough).
    case encodingFailed(reason: String)
}

extension ImagingError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .empty:
            "The image file is empty (0 bytes)."
        case .unrecognizedFormat:
            "Not a supported image: the data is not JPEG, PNG, WebP or HEIC."
        case .truncated(let format):
            "The \(format.displayName) file is truncated: the data ends before the image does."
        case .corrupt(let format, let reason):
            "The \(format.displayName) file is damaged: \(reason)."
        case .unsupported(let format, let reason):
            "This \(format.displayName) file uses a feature that is not supported: \(reason)."
        case .tooSmall(let width, let height, let minimum):
            "The image is too small (\(width)×\(height)); its shorter side must be at least \(minimum) px."
        case .tooLarge(let width, let height, let maximum):
            "The image is too large (\(width)×\(height) = \(width * height) pixels); at most \(maximum) pixels are read."
        case .fileTooLarge(let bytes, let maximum):
            "The image file is too large (\(bytes) bytes); at most \(maximum) bytes are read."
        case .outOfMemory:
            "There was not enough memory to decode the image."
        case .encodingFailed(let reason):
            "The image could not be re-encoded as JPEG: \(reason)."
        }
    }
}
