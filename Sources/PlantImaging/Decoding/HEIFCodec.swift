import CHeif
import Foundation

/// libheif (with libde265 for HEVC). The only file that touches its pointers. libheif applies the
/// HEIF transformations (rotation, mirroring, crop) itself, so the pixels it returns are upright.
enum HEIFCodec {
    struct Header {
        var width: Int
        var height: Int
    }

    /// Decodes the primary image. `check` sees the (transformed) size before any pixel is decoded and
    /// may refuse it. When `minimumShortSide` is given and the file carries a thumbnail at least that
    /// large, the thumbnail is decoded instead: it holds the same picture at a fraction of the cost.
    static func decode(
        _ bytes: UnsafeRawBufferPointer, minimumShortSide: Int?, threads: Int,
        check: (Header) -> ImagingError?
    ) -> Result<(image: RGBImage, original: Header), ImagingError> {
        guard let context = heif_context_alloc() else { return .failure(.outOfMemory) }
        defer { heif_context_free(context) }
        heif_context_set_max_decoding_threads(context, Int32(max(1, threads)))
        if let error = error(heif_context_read_from_memory_without_copy(context, bytes.baseAddress, bytes.count, nil)) {
            return .failure(error)
        }
        var primary: OpaquePointer?
        if let error = error(heif_context_get_primary_image_handle(context, &primary)) { return .failure(error) }
        guard let primary else { return .failure(.corrupt(.heic, reason: "no primary image")) }
        defer { heif_image_handle_release(primary) }
        let original = Header(width: Int(heif_image_handle_get_width(primary)), height: Int(heif_image_handle_get_height(primary)))
        if let refusal = check(original) { return .failure(refusal) }

        var handle = primary
        var thumbnail: OpaquePointer?
        defer { if let thumbnail { heif_image_handle_release(thumbnail) } }
        if let minimumShortSide, let candidate = largestThumbnail(of: primary) {
            if min(heif_image_handle_get_width(candidate), heif_image_handle_get_height(candidate)) >= minimumShortSide {
                thumbnail = candidate
                handle = candidate
            } else {
                heif_image_handle_release(candidate)
            }
        }

        let hasAlpha = heif_image_handle_has_alpha_channel(handle) != 0
        guard let options = heif_decoding_options_alloc() else { return .failure(.outOfMemory) }
        defer { heif_decoding_options_free(options) }
        var image: OpaquePointer?
        let chroma = hasAlpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB
        if let error = error(heif_decode_image(handle, &image, heif_colorspace_RGB, chroma, options)) {
            return .failure(error)
        }
        guard let image else { return .failure(.corrupt(.heic, reason: "the decoder returned no image")) }
        defer { heif_image_release(image) }
        let width = Int(heif_image_get_width(image, heif_channel_interleaved))
        let height = Int(heif_image_get_height(image, heif_channel_interleaved))
        var stride: Int32 = 0
        guard width > 0, height > 0, let plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride),
              heif_image_get_bits_per_pixel_range(image, heif_channel_interleaved) == 8
        else { return .failure(.corrupt(.heic, reason: "the decoder returned no 8-bit pixels")) }
        let channels = hasAlpha ? 4 : 3
        guard Int(stride) >= width * channels else { return .failure(.corrupt(.heic, reason: "bad row stride")) }
        var packed = [UInt8](repeating: 0, count: width * height * channels)
        packed.withUnsafeMutableBytes { out in
            for y in 0..<height {
                let row = UnsafeRawBufferPointer(start: plane + y * Int(stride), count: width * channels)
                out.baseAddress!.advanced(by: y * width * channels).copyMemory(from: row.baseAddress!, byteCount: row.count)
            }
        }
        let rgb = hasAlpha ? AlphaCompositing.onWhite(rgba: packed, width: width, height: height)
            : RGBImage(unchecked: width, height, packed)
        return .success((rgb, original))
    }

    private static func largestThumbnail(of handle: OpaquePointer) -> OpaquePointer? {
        let count = Int(heif_image_handle_get_number_of_thumbnails(handle))
        guard count > 0 else { return nil }
        var ids = [heif_item_id](repeating: 0, count: count)
        let listed = Int(heif_image_handle_get_list_of_thumbnail_IDs(handle, &ids, Int32(count)))
        var best: OpaquePointer?
        var bestPixels = 0
        for id in ids.prefix(listed) {
            var thumbnail: OpaquePointer?
            guard error(heif_image_handle_get_thumbnail(handle, id, &thumbnail)) == nil, let thumbnail else { continue }
            let pixels = Int(heif_image_handle_get_width(thumbnail)) * Int(heif_image_handle_get_height(thumbnail))
            if pixels > bestPixels {
                if let best { heif_image_handle_release(best) }
                best = thumbnail
                bestPixels = pixels
            } else {
                heif_image_handle_release(thumbnail)
            }
        }
        return best
    }

    private static func error(_ error: heif_error) -> ImagingError? {
        guard error.code != heif_error_Ok else { return nil }
        let reason = error.message.map { String(cString: $0) } ?? "libheif error \(error.code.rawValue)"
        if error.subcode == heif_suberror_End_of_data { return .truncated(.heic) }
        switch error.code {
        case heif_error_Unsupported_filetype, heif_error_Unsupported_feature:
            return .unsupported(.heic, reason: reason)
        case heif_error_Memory_allocation_error:
            return .outOfMemory
        default:
            return .corrupt(.heic, reason: reason)
        }
    }
}
