import Foundation
import PlantGuideCore

/// Turns the bytes of a photo (JPEG, PNG, WebP or HEIC, recognised by their signature) into upright
/// 8-bit RGB pixels, refusing empty, damaged, tiny and oversized images with an ``ImagingError``.
public struct ImageDecoder: Sendable {
    /// The guards applied before decoding.
    public let limits: DecodeLimits
    /// Threads libheif may use for the tiles of one HEIC image.
    public let heifThreads: Int

    public init(limits: DecodeLimits = .default) {
        self.init(limits: limits, heifThreads: ProcessInfo.processInfo.activeProcessorCount)
    }

    public init(limits: DecodeLimits, heifThreads: Int) {
        self.limits = limits
        self.heifThreads = heifThreads
    }

    /// Decodes `data`. With `minimumShortSide`, the result may be smaller than the original as long as
    /// its shorter side stays at least that large: a JPEG is decoded at 1/2, 1/4 or 1/8 scale (DCT
    /// scaling), a HEIC is read from its thumbnail when that is large enough, else shrunk by 2, 4 or 8
    /// while its planes are converted to RGB. `originalWidth`/`originalHeight` keep the stored size.
    public func decode(_ data: Data, minimumShortSide: Int? = nil) throws(ImagingError) -> DecodedImage {
        try decode(data, target: minimumShortSide.map { .shortSide($0) })
    }

    /// How small a reduced decode may go.
    enum Target {
        case shortSide(Int)
        case longSide(Int)

        func allows(width: Int, height: Int) -> Bool {
            switch self {
            case .shortSide(let side): min(width, height) >= side
            case .longSide(let side): max(width, height) >= side
            }
        }
    }

    func decode(_ data: Data, target: Target?) throws(ImagingError) -> DecodedImage {
        guard !data.isEmpty else { throw .empty }
        guard data.count <= limits.maximumBytes else { throw .fileTooLarge(bytes: data.count, maximumBytes: limits.maximumBytes) }
        guard let format = ImageFormat.detect(data.prefix(32)) else { throw .unrecognizedFormat }
        let result: Result<DecodedImage, ImagingError> = data.withUnsafeBytes { bytes in
            switch format {
            case .jpeg: decodeJPEG(bytes, target: target)
            case .png: decodePNG(bytes)
            case .webp: decodeWebP(bytes)
            case .heic: decodeHEIF(bytes, target: target)
            }
        }
        return try result.get()
    }

    /// The largest of 8, 4 and 2 that keeps ⌈width/f⌉×⌈height/f⌉ within `target`, else 1.
    static func reductionFactor(width: Int, height: Int, target: Target) -> Int {
        for factor in [8, 4, 2] where target.allows(width: (width + factor - 1) / factor, height: (height + factor - 1) / factor) {
            return factor
        }
        return 1
    }

    /// Refuses sizes outside the limits; called with the header's size before pixels are allocated.
    func check(width: Int, height: Int) -> ImagingError? {
        if width <= 0 || height <= 0 { return .tooSmall(width: width, height: height, minimumShortSide: limits.minimumShortSide) }
        let (product, overflow) = width.multipliedReportingOverflow(by: height)
        if overflow || product > limits.maximumPixels {
            return .tooLarge(width: width, height: height, maximumPixels: limits.maximumPixels)
        }
        if min(width, height) < limits.minimumShortSide {
            return .tooSmall(width: width, height: height, minimumShortSide: limits.minimumShortSide)
        }
        return nil
    }

    private func decodeJPEG(_ bytes: UnsafeRawBufferPointer, target: Target?) -> Result<DecodedImage, ImagingError> {
        let header: JPEGCodec.Header
        switch JPEGCodec.header(bytes) {
        case .success(let value): header = value
        case .failure(let error): return .failure(error)
        }
        if let refusal = check(width: header.width, height: header.height) { return .failure(refusal) }
        let denominator = target.map { Self.reductionFactor(width: header.width, height: header.height, target: $0) } ?? 1
        let orientation = ExifOrientationReader.orientation(inJPEG: bytes)
        return JPEGCodec.decode(bytes, denominator: denominator).map { stored in
            DecodedImage(
                image: Orientation.apply(orientation, width: stored.width, height: stored.height, pixels: stored.pixels),
                format: .jpeg, originalWidth: header.width, originalHeight: header.height,
                orientation: orientation, scaleDenominator: denominator)
        }
    }

    private func decodePNG(_ bytes: UnsafeRawBufferPointer) -> Result<DecodedImage, ImagingError> {
        PNGCodec.header(bytes).flatMap { header in
            if let refusal = check(width: header.width, height: header.height) { return .failure(refusal) }
            return PNGCodec.decode(bytes, width: header.width, height: header.height).map {
                DecodedImage(image: $0, format: .png, originalWidth: header.width, originalHeight: header.height, orientation: 1)
            }
        }
    }

    private func decodeWebP(_ bytes: UnsafeRawBufferPointer) -> Result<DecodedImage, ImagingError> {
        WebPCodec.header(bytes).flatMap { header in
            if let refusal = check(width: header.width, height: header.height) { return .failure(refusal) }
            let orientation = ExifOrientationReader.orientation(inWebP: bytes)
            return WebPCodec.decode(bytes, header: header).map {
                DecodedImage(
                    image: Orientation.apply(orientation, width: $0.width, height: $0.height, pixels: $0.pixels),
                    format: .webp, originalWidth: header.width, originalHeight: header.height, orientation: orientation)
            }
        }
    }

    private func decodeHEIF(_ bytes: UnsafeRawBufferPointer, target: Target?) -> Result<DecodedImage, ImagingError> {
        return HEIFCodec.decode(bytes, target: target, threads: heifThreads) { header in
            check(width: header.width, height: header.height)
        }.map { decoded in
            DecodedImage(image: decoded.image, format: .heic, originalWidth: decoded.original.width,
                         originalHeight: decoded.original.height, orientation: 1)
        }
    }
}
