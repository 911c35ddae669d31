import PlantStore

/// The photo encoder the command line uses.
enum LivePhotoEncoder {
    /// Keeps originals as they are until the image pipeline is wired in.
    static func make() -> PhotoEncoder { .storingOriginal }
}
