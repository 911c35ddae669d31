import CPlantImaging
import PlantGuideCore

/// libjpeg-turbo, through the setjmp shim. The only file that touches its pointers.
enum JPEGCodec {
    struct Header {
        var width: Int
        var height: Int
    }

    static func header(_ bytes: UnsafeRawBufferPointer) -> Result<Header, ImagingError> {
        var header = pg_jpeg_header()
        var message = MessageBuffer()
        let status = message.withPointer { pg_jpeg_read_header(base(bytes), bytes.count, &header, $0, $1) }
        if let error = error(status, message) { return .failure(error) }
        return .success(Header(width: Int(header.width), height: Int(header.height)))
    }

    /// Decodes at 1/`denominator` of the stored size (libjpeg's DCT scaling: no full-size buffer).
    static func decode(_ bytes: UnsafeRawBufferPointer, denominator: Int) -> Result<RGBImage, ImagingError> {
        var width: Int32 = 0, height: Int32 = 0
        var message = MessageBuffer()
        var status = message.withPointer {
            pg_jpeg_scaled_size(base(bytes), bytes.count, Int32(denominator), &width, &height, $0, $1)
        }
        if let error = error(status, message) { return .failure(error) }
        guard width > 0, height > 0 else { return .failure(.corrupt(.jpeg, reason: "the image has no pixels")) }
        let count = Int(width) * Int(height) * 3
        let pixels = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            status = message.withPointer {
                pg_jpeg_decode_rgb(base(bytes), bytes.count, Int32(denominator), buffer.baseAddress, width, height, $0, $1)
            }
            // On failure the buffer may be partly written; zero-filling keeps the array valid to discard.
            if status != Int32(PG_OK) { buffer.initialize(repeating: 0) }
            initialized = count
        }
        if let error = error(status, message) { return .failure(error) }
        return .success(RGBImage(unchecked: Int(width), Int(height), pixels))
    }

    /// Encodes RGB as JPEG with no metadata (only the JFIF header).
    static func encode(_ image: RGBImage, quality: Int) -> Result<[UInt8], ImagingError> {
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        var message = MessageBuffer()
        let status = image.pixels.withUnsafeBufferPointer { pixels in
            message.withPointer {
                pg_jpeg_encode_rgb(pixels.baseAddress, Int32(image.width), Int32(image.height), Int32(quality), &output, &size, $0, $1)
            }
        }
        defer { pg_free(output) }
        guard status == Int32(PG_OK), let output else {
            return .failure(.encodingFailed(reason: message.text.isEmpty ? "encoder error" : message.text))
        }
        return .success(Array(UnsafeBufferPointer(start: output, count: size)))
    }

    private static func base(_ bytes: UnsafeRawBufferPointer) -> UnsafePointer<UInt8>? {
        bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
    }

    private static func error(_ status: Int32, _ message: MessageBuffer) -> ImagingError? {
        ShimStatus.error(status, message, format: .jpeg)
    }
}

/// Room for a C library's error message.
struct MessageBuffer {
    private var storage = [CChar](repeating: 0, count: 256)

    mutating func withPointer<T>(_ body: (UnsafeMutablePointer<CChar>, Int) -> T) -> T {
        storage.withUnsafeMutableBufferPointer { body($0.baseAddress!, $0.count) }
    }

    var text: String {
        let bytes = storage.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// Maps the shim's status codes to errors.
enum ShimStatus {
    static func error(_ status: Int32, _ message: MessageBuffer, format: ImageFormat) -> ImagingError? {
        let reason = message.text.isEmpty ? "unreadable data" : message.text
        switch status {
        case Int32(PG_OK): return nil
        case Int32(PG_TRUNCATED): return .truncated(format)
        case Int32(PG_UNSUPPORTED): return .unsupported(format, reason: reason)
        case Int32(PG_OUT_OF_MEMORY): return .outOfMemory
        default: return .corrupt(format, reason: reason)
        }
    }
}
