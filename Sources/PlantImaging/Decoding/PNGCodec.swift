import CPlantImaging

/// libpng, through the setjmp shim. The only file that touches its pointers.
enum PNGCodec {
    static func header(_ bytes: UnsafeRawBufferPointer) -> Result<(width: Int, height: Int), ImagingError> {
        var header = pg_png_header()
        var message = MessageBuffer()
        let status = message.withPointer { pg_png_read_header(base(bytes), bytes.count, &header, $0, $1) }
        if let error = ShimStatus.error(status, message, format: .png) { return .failure(error) }
        return .success((Int(header.width), Int(header.height)))
    }

    static func decode(_ bytes: UnsafeRawBufferPointer, width: Int, height: Int) -> Result<RGBImage, ImagingError> {
        var message = MessageBuffer()
        var status = Int32(PG_OK)
        let count = width * height * 3
        let pixels = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            status = message.withPointer {
                pg_png_decode_rgb(base(bytes), bytes.count, buffer.baseAddress, UInt32(width), UInt32(height), $0, $1)
            }
            if status != Int32(PG_OK) { buffer.initialize(repeating: 0) }
            initialized = count
        }
        if let error = ShimStatus.error(status, message, format: .png) { return .failure(error) }
        return .success(RGBImage(unchecked: width, height, pixels))
    }

    private static func base(_ bytes: UnsafeRawBufferPointer) -> UnsafePointer<UInt8>? {
        bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
    }
}
