import CWebP

/// libwebp. The only file that touches its pointers.
enum WebPCodec {
    struct Header {
        var width: Int
        var height: Int
        var hasAlpha: Bool
    }

    static func header(_ bytes: UnsafeRawBufferPointer) -> Result<Header, ImagingError> {
        var features = WebPBitstreamFeatures()
        let status = WebPGetFeatures(base(bytes), bytes.count, &features)
        if let error = error(status) { return .failure(error) }
        if features.has_animation != 0 { return .failure(.unsupported(.webp, reason: "animated WebP")) }
        return .success(Header(width: Int(features.width), height: Int(features.height), hasAlpha: features.has_alpha != 0))
    }

    static func decode(_ bytes: UnsafeRawBufferPointer, header: Header) -> Result<RGBImage, ImagingError> {
        var config = WebPDecoderConfig()
        guard WebPInitDecoderConfig(&config) != 0 else { return .failure(.unsupported(.webp, reason: "libwebp version")) }
        let channels = header.hasAlpha ? 4 : 3
        let stride = header.width * channels
        var decoded = [UInt8](repeating: 0, count: stride * header.height)
        let status = decoded.withUnsafeMutableBufferPointer { buffer in
            config.output.colorspace = header.hasAlpha ? MODE_RGBA : MODE_RGB
            config.output.is_external_memory = 1
            config.output.u.RGBA.rgba = buffer.baseAddress
            config.output.u.RGBA.stride = Int32(stride)
            config.output.u.RGBA.size = buffer.count
            let status = WebPDecode(base(bytes), bytes.count, &config)
            WebPFreeDecBuffer(&config.output)
            return status
        }
        if let error = error(status) { return .failure(error) }
        guard Int(config.output.width) == header.width, Int(config.output.height) == header.height else {
            return .failure(.corrupt(.webp, reason: "the decoded size differs from the header"))
        }
        guard header.hasAlpha else { return .success(RGBImage(unchecked: header.width, header.height, decoded)) }
        return .success(AlphaCompositing.onWhite(rgba: decoded, width: header.width, height: header.height))
    }

    private static func error(_ status: VP8StatusCode) -> ImagingError? {
        switch status {
        case VP8_STATUS_OK: nil
        case VP8_STATUS_NOT_ENOUGH_DATA: .truncated(.webp)
        case VP8_STATUS_UNSUPPORTED_FEATURE: .unsupported(.webp, reason: "a bitstream feature libwebp does not read")
        case VP8_STATUS_OUT_OF_MEMORY: .outOfMemory
        default: .corrupt(.webp, reason: "invalid bitstream (libwebp status \(status.rawValue))")
        }
    }

    private static func base(_ bytes: UnsafeRawBufferPointer) -> UnsafePointer<UInt8>? {
        bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
    }
}

/// Flattens RGBA onto a white background, the way a photo viewer shows it.
enum AlphaCompositing {
    static func onWhite(rgba: [UInt8], width: Int, height: Int) -> RGBImage {
        let count = width * height
        let rgb = [UInt8](unsafeUninitializedCapacity: count * 3) { out, initialized in
            rgba.withUnsafeBufferPointer { source in
                for i in 0..<count {
                    let alpha = UInt32(source[i * 4 + 3])
                    let white = 255 * (255 - alpha) + 127
                    out[i * 3] = UInt8((UInt32(source[i * 4]) * alpha + white) / 255)
                    out[i * 3 + 1] = UInt8((UInt32(source[i * 4 + 1]) * alpha + white) / 255)
                    out[i * 3 + 2] = UInt8((UInt32(source[i * 4 + 2]) * alpha + white) / 255)
                }
            }
            initialized = count * 3
        }
        return RGBImage(unchecked: width, height, rgb)
    }
}
