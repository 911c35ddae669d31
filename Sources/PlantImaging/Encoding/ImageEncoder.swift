import CHeif
import CPNG
import Foundation

/// Writes RGB images as JPEG, PNG or HEIC: the upload path uses JPEG; tests and benchmarks use all
/// three to make inputs at run time instead of committing large files.
public enum ImageEncoder {
    /// Baseline JPEG (optimised Huffman tables, 4:2:0) with no metadata besides the JFIF header.
    public static func jpeg(_ image: RGBImage, quality: Int) throws(ImagingError) -> Data {
        try Data(JPEGCodec.encode(image, quality: min(max(quality, 1), 100)).get())
    }

    /// 8-bit RGB PNG (libpng's simplified writer, default compression).
    public static func png(_ image: RGBImage) throws(ImagingError) -> Data {
        var description = png_image()
        description.version = png_uint_32(PNG_IMAGE_VERSION)
        description.width = png_uint_32(image.width)
        description.height = png_uint_32(image.height)
        description.format = png_uint_32(PNG_FORMAT_RGB)
        var size = 0
        let sized = image.pixels.withUnsafeBytes { pixels in
            png_image_write_to_memory(&description, nil, &size, 0, pixels.baseAddress, Int32(image.width * 3), nil)
        }
        guard sized != 0, size > 0 else {
            png_image_free(&description)
            throw .encodingFailed(reason: "libpng could not size the PNG")
        }
        var output = Data(count: size)
        let written = output.withUnsafeMutableBytes { out in
            image.pixels.withUnsafeBytes { pixels in
                png_image_write_to_memory(&description, out.baseAddress, &size, 0, pixels.baseAddress, Int32(image.width * 3), nil)
            }
        }
        png_image_free(&description)
        guard written != 0 else { throw .encodingFailed(reason: "libpng could not write the PNG") }
        return output.prefix(size)
    }

    /// HEIC (HEVC through libheif's x265 plugin) with an optional thumbnail whose long side is
    /// `thumbnailSide`, as phones write. `preset` is x265's speed preset.
    public static func heic(
        _ image: RGBImage, quality: Int, thumbnailSide: Int? = nil, preset: String = "ultrafast"
    ) throws(ImagingError) -> Data {
        guard let context = heif_context_alloc() else { throw .outOfMemory }
        defer { heif_context_free(context) }
        var encoder: OpaquePointer?
        try check(heif_context_get_encoder_for_format(context, heif_compression_HEVC, &encoder))
        guard let encoder else { throw .encodingFailed(reason: "no HEVC encoder in libheif") }
        defer { heif_encoder_release(encoder) }
        try check(heif_encoder_set_lossy_quality(encoder, Int32(min(max(quality, 1), 100))))
        _ = heif_encoder_set_parameter(encoder, "preset", preset)

        var picture: OpaquePointer?
        try check(heif_image_create(Int32(image.width), Int32(image.height), heif_colorspace_RGB, heif_chroma_interleaved_RGB, &picture))
        guard let picture else { throw .outOfMemory }
        defer { heif_image_release(picture) }
        try check(heif_image_add_plane(picture, heif_channel_interleaved, Int32(image.width), Int32(image.height), 8))
        var stride: Int32 = 0
        guard let plane = heif_image_get_plane(picture, heif_channel_interleaved, &stride) else { throw .outOfMemory }
        image.pixels.withUnsafeBytes { pixels in
            for y in 0..<image.height {
                (plane + y * Int(stride)).update(
                    from: pixels.baseAddress!.assumingMemoryBound(to: UInt8.self) + y * image.width * 3, count: image.width * 3)
            }
        }
        var handle: OpaquePointer?
        try check(heif_context_encode_image(context, picture, encoder, nil, &handle))
        defer { if let handle { heif_image_handle_release(handle) } }
        if let thumbnailSide, let handle {
            var thumbnail: OpaquePointer?
            try check(heif_context_encode_thumbnail(context, picture, handle, encoder, nil, Int32(thumbnailSide), &thumbnail))
            if let thumbnail { heif_image_handle_release(thumbnail) }
        }
        let sink = ByteSink()
        var writer = heif_writer(writer_api_version: 1) { _, data, size, userdata in
            if let data, let userdata {
                Unmanaged<ByteSink>.fromOpaque(userdata).takeUnretainedValue().bytes.append(
                    data.assumingMemoryBound(to: UInt8.self), count: size)
            }
            return heif_error(code: heif_error_Ok, subcode: heif_suberror_Unspecified, message: nil)
        }
        try check(heif_context_write(context, &writer, Unmanaged.passUnretained(sink).toOpaque()))
        return sink.bytes
    }

    private static func check(_ error: heif_error) throws(ImagingError) {
        guard error.code != heif_error_Ok else { return }
        throw .encodingFailed(reason: error.message.map { String(cString: $0) } ?? "libheif error \(error.code.rawValue)")
    }
}

/// Collects what libheif writes; used only during one synchronous `heif_context_write` call.
private final class ByteSink {
    var bytes = Data()
}
