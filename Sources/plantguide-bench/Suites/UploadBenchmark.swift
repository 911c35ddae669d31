import Foundation
import PlantForms
import PlantImaging
import PlantNetStub

/// Reading a photo upload's `multipart/form-data` body: the server's own parser (a Knuth–Morris–Pratt scan with
/// the form limits) against multipart-kit's, the field's library, in the same run, on a phone photo and on a
/// hostile body made of near-delimiters ("\r\n--" over and over), where a parser has the most to do per byte.
/// The server keeps its own parser because of the hostile row; the Pl@ntNet client and stub use multipart-kit, and
/// the stub's reader (multipart-kit's parser, its parts collected) is the peer here.
struct UploadBenchmark: BenchmarkSuite {
    let name = "uploads"

    func run() async throws -> [BenchmarkRow] {
        let jpeg = try ImageEncoder.jpeg(SyntheticPhoto.make(width: 4032, height: 3024), quality: 92)
        let hostile = Data(String(repeating: "\r\n--", count: jpeg.count / 4).utf8)
        let boundary = "----plantguide-bench"
        func body(_ file: Data) -> Data {
            var body = Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"organ\"\r\n\r\nleaf\r\n".utf8)
            body += Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"p.jpg\"\r\n".utf8)
            body += Data("Content-Type: image/jpeg\r\n\r\n".utf8) + file + Data("\r\n--\(boundary)--\r\n".utf8)
            return body
        }
        let contentType = "multipart/form-data; boundary=\(boundary)"
        let upload = body(jpeg), hostileUpload = body(hostile)
        let preprocessor = Preprocessor(spec: .plantNet300K)
        var own: [Double] = [], kit: [Double] = [], hostileOwn: [Double] = [], hostileKit: [Double] = [], decode: [Double] = []
        for _ in 0..<15 {
            own.append(try Measure.seconds { _ = try FormData.parse(contentType: contentType, body: upload) })
            kit.append(try Measure.seconds { _ = try StubPart.parse(upload, boundary: boundary) })
            hostileOwn.append(try Measure.seconds { _ = try FormData.parse(contentType: contentType, body: hostileUpload) })
            hostileKit.append(try Measure.seconds { _ = try StubPart.parse(hostileUpload, boundary: boundary) })
            decode.append(try Measure.seconds { _ = try preprocessor.tensor(fromFile: jpeg) })
        }
        let ms = 1000.0
        let mib = String(format: "%.1f MiB", Double(upload.count) / 1_048_576)
        func p50(_ samples: [Double]) -> Double { Measure.percentile(samples, 0.5) * ms }
        return [
            BenchmarkRow(
                suite: name, name: "multipart parse, 12 MP photo upload (\(mib)) p50", value: p50(own), unit: "ms",
                below: 10, peer: ("multipart-kit", p50(kit))
            ),
            BenchmarkRow(
                suite: name, name: "multipart parse, \(mib) of near-delimiters p50", value: p50(hostileOwn), unit: "ms",
                below: 100, peer: ("multipart-kit", p50(hostileKit))
            ),
            BenchmarkRow(suite: name, name: "JPEG decode+prepare of the same photo p50 (for scale)", value: p50(decode), unit: "ms"),
        ]
    }
}
