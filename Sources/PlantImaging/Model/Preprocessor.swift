import Foundation

/// Makes the model's input tensor from a photo, matching torchvision's
/// `Resize(resize) → CenterCrop(crop) → ToTensor() → Normalize(mean, std)` on a Pillow image.
public struct Preprocessor: Sendable {
    public let spec: ModelInputSpec
    private let decoder: ImageDecoder

    /// `spec` must be valid (see ``ModelInputSpec/isValid``); an invalid spec is clamped to sizes ≥ 1.
    public init(spec: ModelInputSpec, decoder: ImageDecoder = ImageDecoder()) {
        var spec = spec
        spec.resize = max(spec.resize, 1)
        spec.crop = min(max(spec.crop, 1), spec.resize)
        if spec.mean.count != 3 { spec.mean = ModelInputSpec.plantNet300K.mean }
        if spec.std.count != 3 || !spec.std.allSatisfy({ $0 > 0 }) { spec.std = ModelInputSpec.plantNet300K.std }
        self.spec = spec
        self.decoder = decoder
    }

    /// The resized size torchvision's `Resize(resize)` gives an image of `width`×`height`.
    public func resizedSize(width: Int, height: Int) -> (width: Int, height: Int) {
        let short = min(width, height), long = max(width, height)
        let newLong = Int(Double(spec.resize * long) / Double(short))
        return width <= height ? (spec.resize, newLong) : (newLong, spec.resize)
    }

    /// CHW Float32 tensor of 3 × crop × crop values.
    public func tensor(from image: RGBImage) -> [Float] {
        let (resizedWidth, resizedHeight) = resizedSize(width: image.width, height: image.height)
        let crop = spec.crop
        // torchvision's CenterCrop rounds half to even (Python's round).
        let left = Int((Double(resizedWidth - crop) / 2).rounded(.toNearestOrEven))
        let top = Int((Double(resizedHeight - crop) / 2).rounded(.toNearestOrEven))
        let cropped = Resampler.resize(
            image.pixels, width: image.width, height: image.height, channels: 3,
            to: resizedWidth, resizedHeight, cropX: left, cropY: top, cropWidth: crop, cropHeight: crop)
        let plane = crop * crop
        return [Float](unsafeUninitializedCapacity: 3 * plane) { out, count in
            cropped.withUnsafeBufferPointer { pixels in
                for c in 0..<3 {
                    let mean = spec.mean[c], std = spec.std[c]
                    for i in 0..<plane {
                        out[c * plane + i] = (Float(pixels[i * 3 + c]) / 255 - mean) / std
                    }
                }
            }
            count = 3 * plane
        }
    }

    /// Decodes a photo (allowing a reduced decode down to the resize size) and makes its tensor.
    public func tensor(fromFile data: Data) throws(ImagingError) -> [Float] {
        tensor(from: try decode(data))
    }

    /// Decodes a photo as ``tensor(fromFile:)`` does, allowing a reduced decode down to the resize size; the
    /// tensor is then ``tensor(from:)``. Apart, so the two halves can be timed.
    public func decode(_ data: Data) throws(ImagingError) -> RGBImage {
        try decoder.decode(data, minimumShortSide: spec.resize).image
    }
}
