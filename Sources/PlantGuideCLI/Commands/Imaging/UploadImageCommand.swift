import ArgumentParser
import Foundation
import PlantImaging

/// `plantguide image upload IMAGE --output FILE.jpg`: the JPEG that would be sent to Pl@ntNet.
struct UploadImageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "upload",
        abstract: "Write the upload-ready JPEG of a photo and print its hashes.",
        discussion: """
            Re-encodes the upright photo as JPEG (quality 90, long side at most 1280 px, below 2 MB) \
            with all metadata removed, GPS included. Prints the SHA-256 of the original file and the \
            64-bit perceptual hash (dHash) used to recognise re-takes.

            Examples:
              plantguide image upload IMG_0042.HEIC --output upload.jpg
              plantguide image upload photo.webp --output upload.jpg --max-side 1024 --json
            """
    )

    @Argument(help: "The photo (JPEG, PNG, WebP or HEIC).")
    var image: String

    @Option(name: .shortAndLong, help: "Where to write the JPEG.")
    var output: String

    @Option(help: "Longest side in pixels (never enlarged).")
    var maxSide = 1280

    @Option(help: "JPEG quality, 1–100.")
    var quality = 90

    @OptionGroup var outputOptions: OutputOptions

    func validate() throws {
        guard (16...16384).contains(maxSide) else { throw ValidationError("--max-side must be between 16 and 16384.") }
        guard (1...100).contains(quality) else { throw ValidationError("--quality must be between 1 and 100.") }
    }

    func run() async throws {
        let console = Console()
        let data = try ImageFiles.read(image)
        let preparer = UploadPreparer(maxLongSide: maxSide, quality: quality)
        let upload = try LibraryChatter.silenced { () throws(ImagingError) in try preparer.prepare(data) }
        try ImageFiles.write(upload.jpeg, to: output)
        let report = UploadReport(
            output: output, sourceFormat: upload.sourceFormat.rawValue, width: upload.width, height: upload.height,
            bytes: upload.jpeg.count, quality: upload.quality, originalSHA256: upload.originalSHA256,
            perceptualHash: String(format: "%016llx", upload.perceptualHash))
        if outputOptions.json {
            try console.printJSON(report)
            return
        }
        console.print("\(console.style(output, .bold)): JPEG \(upload.width)×\(upload.height), \(upload.jpeg.count) bytes, quality \(upload.quality)")
        console.print("sha256 \(report.originalSHA256)")
        console.print("dhash  \(report.perceptualHash)")
    }
}

/// What `image upload --json` prints.
struct UploadReport: Encodable {
    var output: String
    var sourceFormat: String
    var width: Int
    var height: Int
    var bytes: Int
    var quality: Int
    var originalSHA256: String
    var perceptualHash: String
}
