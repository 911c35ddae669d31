/// What runs the convolutions of a loaded model.
public enum ConvolutionBackend: String, Sendable, Hashable, CaseIterable {
    /// PlantGuide's own kernels: patch gathering, Winograd and BLAS products. Runs everywhere, and can
    /// keep float16 weights half-size in memory.
    case blas
    /// oneDNN's primitives (Linux with libdnnl): faster on x86-64, weights widened to float32 at load.
    /// Falls back to ``blas`` where oneDNN is missing or refuses a layer.
    case oneDNN

    /// Whether oneDNN is compiled in and starts on this machine.
    public static var oneDNNIsAvailable: Bool { DNNLConvolutions.isAvailable }

    /// The default for a model: oneDNN where it is available, unless the model's weights are to stay
    /// float16 in memory (a big model stored as float16, kept half-size for the memory budget), which
    /// only the BLAS path can do.
    static func automatic(keepsHalfWeights: Bool) -> ConvolutionBackend {
        !keepsHalfWeights && oneDNNIsAvailable ? .oneDNN : .blas
    }
}
