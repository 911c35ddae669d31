import PlantGuideCore

/// A decoded photo and what was learned on the way.
public struct DecodedImage: Sendable {
    /// Upright 8-bit RGB pixels (possibly reduced by JPEG DCT scaling when a smaller size was asked for).
    public let image: RGBImage
    /// The format recognised from the bytes.
    public let format: ImageFormat
    /// Width as stored in the file, before orientation and scaling.
    public let originalWidth: Int
    /// Height as stored in the file, before orientation and scaling.
    public let originalHeight: Int
    /// The EXIF orientation (1…8) that was applied (JPEG and WebP); 1 when none. HEIF rotation and
    /// mirroring are applied by libheif from the file's own transformation boxes and reported as 1.
    public let orientation: Int
    /// The DCT scale denominator used for JPEG (1, 2, 4 or 8); 1 for other formats.
    public let scaleDenominator: Int

    public init(image: RGBImage, format: ImageFormat, originalWidth: Int, originalHeight: Int, orientation: Int,
                scaleDenominator: Int = 1) {
        self.image = image
        self.format = format
        self.originalWidth = originalWidth
        self.originalHeight = originalHeight
        self.orientation = orientation
        self.scaleDenominator = scaleDenominator
    }
}
