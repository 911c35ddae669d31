/// What runs the convolutions of a loaded model.
public enum ConvolutionBackend: String, Sendable, Hashable, CaseIterable {
    /// PlantGuide's own kernels: patch gathering, Winograd and BLAS products. Runs everywhere.
    case blas
    /// oneDNN's primitives (Linux with libdnnl): JIT kernels for the machine's vector unit with the
    /// epilogue fused; measured faster than ``blas`` on x86-64. Falls back to ``blas`` where oneDNN is
    /// missing or refuses a layer.
    case oneDNN

    /// Whether oneDNN is compiled in and starts on this machine.
    public static var oneDNNIsAvailable: Bool { DNNLConvolutions.isAvailable }

    /// The default: oneDNN where it is available, BLAS otherwise. Both keep a big float16 model's
    /// weights half-size in memory and widen them layer by layer.
    static var automatic: ConvolutionBackend { oneDNNIsAvailable ? .oneDNN : .blas }
}
