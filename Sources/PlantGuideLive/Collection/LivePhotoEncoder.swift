import PlantGuideCore
import PlantImaging
import PlantStore

/// The photo encoder of the command line and the web app: photos are decoded (upright, any supported format) and
/// re-encoded as JPEG, which drops EXIF, GPS and other metadata, with a 256-pixel thumbnail.
public enum LivePhotoEncoder {
    /// Long side of the kept photo; large enough to look at and to identify again later.
    public static let photoLongSide = 2048
    /// Long side of the thumbnail lists show.
    public static let thumbnailLongSide = 256

    /// The encoder a collection's photo library uses.
    public static func make() -> PhotoEncoder {
        let photo = UploadPreparer(maxLongSide: photoLongSide, quality: 90, maxBytes: 4_000_000)
        let thumbnail = UploadPreparer(maxLongSide: thumbnailLongSide, quality: 80, maxBytes: 200_000)
        return PhotoEncoder { original in
            let prepared = try photo.prepare(original)
            let small = try thumbnail.prepare(prepared.jpeg)
            return EncodedPhoto(
                data: prepared.jpeg, mediaType: ImageFormat.jpeg.mediaType, width: prepared.width, height: prepared.height,
                thumbnail: small.jpeg
            )
        }
    }
}
