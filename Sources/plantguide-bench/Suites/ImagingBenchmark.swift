import Foundation
import PlantImaging

/// Decode + model input and upload re-encoding of 12-megapixel photos (4032×3024, a phone's size),
/// made at run time so no large file is committed. Peak memory is the rise of the resident set's
/// high-water mark during each case (Linux `/proc/self/clear_refs`), so cases don't hide one another.
struct ImagingBenchmark: BenchmarkSuite {
    let name = "imaging"

    func run() async throws -> [BenchmarkRow] {
        let photo = SyntheticPhoto.make(width: 4032, height: 3024)
        let jpeg = try ImageEncoder.jpeg(photo, quality: 92)
        let png = try ImageEncoder.png(photo)
        // Phones store a small thumbnail next to the picture (iPhone: 320 px long side).
        // Quality 70 gives about the bytes a phone writes for 12 MP (1.5–3 MB).
        let heic = try ImageEncoder.heic(photo, quality: 70, thumbnailSide: 320)
        // Some cameras store a larger preview; a 512 px one is enough for the 256 px model input.
        let heicLargeThumbnail = try ImageEncoder.heic(photo, quality: 70, thumbnailSide: 512)
        let preprocessor = Preprocessor(spec: .plantNet300K)
        let decoder = ImageDecoder()
        let upload = UploadPreparer()
        var rows: [BenchmarkRow] = [
            BenchmarkRow(suite: name, name: "input JPEG q92 (12 MP)", value: Double(jpeg.count) / 1_048_576, unit: "MiB"),
            BenchmarkRow(suite: name, name: "input PNG (12 MP)", value: Double(png.count) / 1_048_576, unit: "MiB"),
            BenchmarkRow(suite: name, name: "input HEIC q70 (12 MP)", value: Double(heic.count) / 1_048_576, unit: "MiB"),
        ]
        func measure(_ label: String, runs: Int, below target: Double? = nil, _ body: () throws -> Void) throws {
            // Memory is read over the first (cold) run, after handing freed heap back to the system.
            let before = PeakMemory.reset()
            try body()
            let peak = PeakMemory.highWaterMiB() - before
            var samples: [Double] = []
            for _ in 0..<runs { samples.append(try Measure.seconds(body)) }
            rows.append(BenchmarkRow(suite: name, name: "\(label) p50", value: Measure.percentile(samples, 0.5) * 1000, unit: "ms", below: target))
            rows.append(BenchmarkRow(suite: name, name: "\(label) max", value: (samples.max() ?? 0) * 1000, unit: "ms"))
            rows.append(BenchmarkRow(suite: name, name: "\(label) peak memory", value: max(peak, 0), unit: "MiB"))
        }
        try measure("JPEG 12 MP decode+prepare (DCT scaled)", runs: 15, below: 40) { _ = try preprocessor.tensor(fromFile: jpeg) }
        try measure("JPEG 12 MP decode only (DCT 1/8)", runs: 15) { _ = try decoder.decode(jpeg, minimumShortSide: 256) }
        try measure("JPEG 12 MP decode+prepare (full decode)", runs: 5) {
            _ = preprocessor.tensor(from: try decoder.decode(jpeg).image)
        }
        try measure("PNG 12 MP decode+prepare", runs: 5) { _ = try preprocessor.tensor(fromFile: png) }
        try measure("HEIC 12 MP decode+prepare", runs: 5, below: 500) { _ = try preprocessor.tensor(fromFile: heic) }
        // The same on one decoding thread (as libheif's own HEVC decoder ran a single-picture HEIC): what threads buy.
        let oneThread = Preprocessor(spec: .plantNet300K, decoder: ImageDecoder(limits: .default, heifThreads: 1))
        try measure("HEIC 12 MP decode+prepare, one decoding thread", runs: 5) { _ = try oneThread.tensor(fromFile: heic) }
        try measure("HEIC 12 MP decode only (to 1/8 while converting)", runs: 5) { _ = try decoder.decode(heic, minimumShortSide: 256) }
        try measure("HEIC 12 MP full-size decode", runs: 3) { _ = try decoder.decode(heic) }
        try measure("HEIC 12 MP with 512 px thumbnail, decode+prepare", runs: 5, below: 500) {
            _ = try preprocessor.tensor(fromFile: heicLargeThumbnail)
        }
        try measure("upload re-encode from 12 MP JPEG", runs: 5) { _ = try upload.prepare(jpeg) }
        try measure("upload re-encode from 12 MP HEIC", runs: 3) { _ = try upload.prepare(heic) }
        return rows
    }
}

/// A photo-like test picture: smooth light, large shapes and fine texture, so encoders work as hard
/// as on a real leaf photo (flat colour would compress unrealistically well).
enum SyntheticPhoto {
    static func make(width: Int, height: Int) -> RGBImage {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        var noise: UInt32 = 0x9E37_79B9
        pixels.withUnsafeMutableBufferPointer { out in
            for y in 0..<height {
                let fy = Double(y) / Double(height)
                for x in 0..<width {
                    let fx = Double(x) / Double(width)
                    noise = noise &* 1_664_525 &+ 1_013_904_223
                    let grain = Double(noise >> 29) - 4
                    let vein = 30 * sin(fx * 80 + 12 * sin(fy * 9))
                    let leaf = (fx - 0.5) * (fx - 0.5) + (fy - 0.5) * (fy - 0.5) * 1.8 < 0.12 ? 1.0 : 0.0
                    let index = (y * width + x) * 3
                    out[index] = clamp(60 + 90 * fy + vein * 0.3 + grain - leaf * 30)
                    out[index + 1] = clamp(90 + 60 * fx + leaf * (70 + vein) + grain)
                    out[index + 2] = clamp(50 + 40 * (1 - fy) + grain - leaf * 20)
                }
            }
        }
        return RGBImage(width: width, height: height, pixels: pixels)!
    }

    private static func clamp(_ value: Double) -> UInt8 {
        UInt8(max(0, min(255, value.rounded())))
    }
}

/// The resident set's high-water mark, resettable on Linux.
enum PeakMemory {
    /// Returns freed heap to the system, resets the high-water mark to the current resident size and
    /// returns that size in MiB.
    static func reset() -> Double {
        #if os(Linux)
        _ = glibcMallocTrim(0)
        #endif
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
        return status("VmRSS")
    }

    /// The high-water mark since the last reset, in MiB.
    static func highWaterMiB() -> Double {
        status("VmHWM")
    }

    private static func status(_ key: String) -> Double {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return .nan }
        for line in text.split(separator: "\n") where line.hasPrefix(key + ":") {
            let digits = line.split(separator: " ").dropFirst().first.flatMap { Double($0) } ?? .nan
            return digits / 1024
        }
        return .nan
    }
}

#if os(Linux)
/// glibc's `malloc_trim` (not exported by the Glibc module).
@_silgen_name("malloc_trim")
private func glibcMallocTrim(_ pad: Int) -> Int32
#endif
