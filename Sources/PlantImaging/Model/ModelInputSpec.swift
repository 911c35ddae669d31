/// How a photo becomes a model's input: resize the shorter side to `resize` (Pillow bilinear with
/// antialiasing), centre-crop `crop`×`crop`, scale to [0, 1], subtract `mean` and divide by `std` per
/// channel (R, G, B), laid out channel-first (CHW) as Float32.
public struct ModelInputSpec: Sendable, Codable, Hashable {
    /// Target length of the shorter side after resizing.
    public var resize: Int
    /// Side of the square centre crop; at most `resize`.
    public var crop: Int
    /// Per-channel mean (R, G, B) of [0, 1] values.
    public var mean: [Float]
    /// Per-channel standard deviation (R, G, B).
    public var std: [Float]

    public init(resize: Int, crop: Int, mean: [Float], std: [Float]) {
        self.resize = resize
        self.crop = crop
        self.mean = mean
        self.std = std
    }

    /// The PlantNet-300K evaluation transform: 256, centre 224, ImageNet statistics.
    public static let plantNet300K = ModelInputSpec(
        resize: 256, crop: 224, mean: [0.485, 0.456, 0.406], std: [0.229, 0.224, 0.225])

    /// Number of floats in one tensor: 3 × crop × crop.
    public var elementCount: Int { 3 * crop * crop }

    /// Whether the numbers make sense (positive sizes, crop ≤ resize, three positive deviations).
    public var isValid: Bool {
        resize > 0 && crop > 0 && crop <= resize && mean.count == 3 && std.count == 3 && std.allSatisfy { $0 > 0 }
    }
}
