import CHeif
import CPlantImaging
import Foundation

/// libheif (with libde265 for HEVC). The only file that touches its pointers. libheif applies the
/// HEIF transformations (rotation, mirroring, crop) itself, so the pixels it returns are upright.
enum HEIFCodec {
    struct Header {
        var width: Int
        var height: Int
    }

    /// Decodes the primary image. `check` sees the (transformed) size before any pixel is decoded and
    /// may refuse it. With a `target`, a thumbnail that is large enough is decoded instead of the image
    /// (same picture, a fraction of the cost), and the result may be shrunk by 2, 4 or 8 while it is
    /// converted to RGB.
    static func decode(
        _ bytes: UnsafeRawBufferPointer, target: ImageDecoder.Target?, threads: Int,
        check: (Header) -> ImagingError?
    ) -> Result<(image: RGBImage, original: Header), ImagingError> {
        guard let context = heif_context_alloc() else { return .failure(.outOfMemory) }
        defer { heif_context_free(context) }
        heif_context_set_max_decoding_threads(context, Int32(max(1, threads)))
        // Tiles are decoded in parallel by libheif; one whole picture (as many encoders write) is spread over the
        // threads by libde265 itself, through the plugin (on libheif's tile threads it decodes single-threaded).
        _ = pg_heif_use_threaded_hevc(Int32(threads > 1 ? threads : 0))
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
        if let target, let candidate = largestThumbnail(of: primary) {
            if target.allows(width: Int(heif_image_handle_get_width(candidate)), height: Int(heif_image_handle_get_height(candidate))) {
                thumbnail = candidate
                handle = candidate
            } else {
                heif_image_handle_release(candidate)
            }
        }
        let width = Int(heif_image_handle_get_width(handle)), height = Int(heif_image_handle_get_height(handle))
        let factor = target.map { ImageDecoder.reductionFactor(width: width, height: height, target: $0) } ?? 1

        let hasAlpha = heif_image_handle_has_alpha_channel(handle) != 0
        guard let options = heif_decoding_options_alloc() else { return .failure(.outOfMemory) }
        defer { heif_decoding_options_free(options) }
        if !hasAlpha, heif_image_handle_get_luma_bits_per_pixel(handle) == 8 {
            switch decodeYCbCr(handle, options: options, factor: factor) {
            case .success(let image?): return .success((image, original))
            case .success(nil): break  // a colour matrix handled only by libheif's own conversion
            case .failure(let error): return .failure(error)
            }
        }
        var image: OpaquePointer?
        let chroma = hasAlpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB
        if let error = error(heif_decode_image(handle, &image, heif_colorspace_RGB, chroma, options)) {
            return .failure(error)
        }
        guard let image else { return .failure(.corrupt(.heic, reason: "the decoder returned no image")) }
        defer { heif_image_release(image) }
        let decodedWidth = Int(heif_image_get_width(image, heif_channel_interleaved))
        let decodedHeight = Int(heif_image_get_height(image, heif_channel_interleaved))
        var stride: Int32 = 0
        guard decodedWidth > 0, decodedHeight > 0, let plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride),
              heif_image_get_bits_per_pixel_range(image, heif_channel_interleaved) == 8
        else { return .failure(.corrupt(.heic, reason: "the decoder returned no 8-bit pixels")) }
        let channels = hasAlpha ? 4 : 3
        guard Int(stride) >= decodedWidth * channels else { return .failure(.corrupt(.heic, reason: "bad row stride")) }
        var packed = [UInt8](repeating: 0, count: decodedWidth * decodedHeight * channels)
        packed.withUnsafeMutableBytes { out in
            for y in 0..<decodedHeight {
                let row = UnsafeRawBufferPointer(start: plane + y * Int(stride), count: decodedWidth * channels)
                out.baseAddress!.advanced(by: y * decodedWidth * channels).copyMemory(from: row.baseAddress!, byteCount: row.count)
            }
        }
        let rgb = hasAlpha ? AlphaCompositing.onWhite(rgba: packed, width: decodedWidth, height: decodedHeight)
            : RGBImage(unchecked: decodedWidth, decodedHeight, packed)
        return .success((rgb, original))
    }

    /// Decodes to 4:2:0 planes and converts (and shrinks) them here; `nil` when the colour matrix is
    /// not one ``YCbCrConversion`` knows.
    private static func decodeYCbCr(
        _ handle: OpaquePointer, options: UnsafeMutablePointer<heif_decoding_options>, factor: Int
    ) -> Result<RGBImage?, ImagingError> {
        var image: OpaquePointer?
        if let error = error(heif_decode_image(handle, &image, heif_colorspace_YCbCr, heif_chroma_420, options)) {
            return .failure(error)
        }
        guard let image else { return .failure(.corrupt(.heic, reason: "the decoder returned no image")) }
        defer { heif_image_release(image) }
        var profile: UnsafeMutablePointer<heif_color_profile_nclx>?
        _ = heif_image_get_nclx_color_profile(image, &profile)
        defer { if let profile { heif_nclx_color_profile_free(profile) } }
        let matrix = profile.map { Int($0.pointee.matrix_coefficients.rawValue) } ?? 6
        let fullRange = profile.map { $0.pointee.full_range_flag != 0 } ?? true
        guard let conversion = YCbCrConversion(matrixCoefficients: matrix, fullRange: fullRange) else { return .success(nil) }
        let width = Int(heif_image_get_width(image, heif_channel_Y)), height = Int(heif_image_get_height(image, heif_channel_Y))
        var planes: [YCbCrConversion.Plane] = []
        for channel in [heif_channel_Y, heif_channel_Cb, heif_channel_Cr] {
            var stride: Int32 = 0
            guard let base = heif_image_get_plane_readonly(image, channel, &stride),
                  heif_image_get_bits_per_pixel_range(image, channel) == 8 else { return .success(nil) }
            let expectedWidth = channel == heif_channel_Y ? width : (width + 1) / 2
            let expectedHeight = channel == heif_channel_Y ? height : (height + 1) / 2
            guard Int(stride) >= expectedWidth, Int(heif_image_get_width(image, channel)) >= expectedWidth,
                  Int(heif_image_get_height(image, channel)) >= expectedHeight else { return .success(nil) }
            planes.append(YCbCrConversion.Plane(base: base, stride: Int(stride)))
        }
        guard width > 0, height > 0 else { return .failure(.corrupt(.heic, reason: "the decoder returned no pixels")) }
        return .success(conversion.rgb(y: planes[0], cb: planes[1], cr: planes[2], width: width, height: height, factor: factor))
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
