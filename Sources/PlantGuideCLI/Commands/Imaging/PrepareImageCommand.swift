import ArgumentParser
import Foundation
import PlantGuideCore
import PlantImaging

/// `plantguide image prepare IMAGE --output FILE.npy`: the model's input tensor as a NumPy file.
struct PrepareImageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prepare",
        abstract: "Write the model input tensor of a photo as a .npy file.",
        discussion: """
            Decodes the photo, turns it upright, resizes its shorter side to --resize (antialiased \
            bilinear, as Pillow), centre-crops --size × --size, scales to [0, 1] and normalises with the \
            ImageNet mean and standard deviation. The file holds float32 (<f4) of shape [3, size, size].

            Examples:
              plantguide image prepare monstera.jpg --output monstera.npy
              plantguide image prepare leaf.heic --output leaf.npy --size 224 --resize 256 --json
            """
    )

    @Argument(help: "The photo (JPEG, PNG, WebP or HEIC).")
    var image: String

    @Option(name: .shortAndLong, help: "Where to write the tensor (.npy).")
    var output: String

    @Option(help: "Side of the square centre crop.")
    var size = 224

    @Option(help: "Length of the shorter side after resizing.")
    var resize = 256

    @OptionGroup var outputOptions: OutputOptions

    func validate() throws {
        guard size > 0, size <= 4096 else { throw ValidationError("--size must be between 1 and 4096.") }
        guard resize >= size, resize <= 8192 else { throw ValidationError("--resize must be at least --size and at most 8192.") }
    }

    func run() async throws {
        let console = Console()
        let data = try ImageFiles.read(image)
        var spec = ModelInputSpec.plantNet300K
        spec.crop = size
        spec.resize = resize
        let start = ContinuousClock.now
        let decoded = try LibraryChatter.silenced { () throws(ImagingError) in
            try ImageDecoder().decode(data, minimumShortSide: resize)
        }
        let decodedAt = ContinuousClock.now
        let tensor = Preprocessor(spec: spec).tensor(from: decoded.image)
        let end = ContinuousClock.now
        try ImageFiles.write(NumpyFile.data(tensor, shape: [3, size, size]), to: output)
        let report = PrepareReport(
            format: decoded.format.rawValue, originalWidth: decoded.originalWidth, originalHeight: decoded.originalHeight,
            orientation: decoded.orientation, decodedWidth: decoded.image.width, decodedHeight: decoded.image.height,
            shape: [3, size, size], output: output,
            decodeMilliseconds: (decodedAt - start).inMilliseconds, prepareMilliseconds: (end - decodedAt).inMilliseconds)
        if outputOptions.json {
            try console.printJSON(report)
            return
        }
        console.print("\(console.style(output, .bold)): float32 [3, \(size), \(size)]")
        console.print("format \(decoded.format.displayName), original \(decoded.originalWidth)×\(decoded.originalHeight), "
            + "orientation \(decoded.orientation), decoded at \(decoded.image.width)×\(decoded.image.height)")
        console.print(String(format: "decode %.1f ms, prepare %.1f ms", report.decodeMilliseconds, report.prepareMilliseconds))
    }
}

/// What `image prepare --json` prints.
struct PrepareReport: Encodable {
    var format: String
    var originalWidth: Int
    var originalHeight: Int
    var orientation: Int
    var decodedWidth: Int
    var decodedHeight: Int
    var shape: [Int]
    var output: String
    var decodeMilliseconds: Double
    var prepareMilliseconds: Double
}
