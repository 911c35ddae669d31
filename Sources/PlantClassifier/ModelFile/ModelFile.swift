import CPlantKernels
import Foundation

/// PlantGuide's model file (`.pgmodel`): a small JSON header and the weights, already folded and packed
/// for the engine, so loading is reading plus (for float16) widening.
///
/// Layout, all integers little-endian:
/// ```
/// 0   8 bytes  magic "PGMODEL\0"
/// 8   u32      format version (1)
/// 12  u32      header length H
/// 16  H bytes  header: UTF-8 JSON ``ModelManifest``
///     padding  zeros up to a multiple of 64
///     data     tensors at their `offset` from here, each 64-byte aligned, float16 or float32 values
/// ```
/// Each tensor's entry in the header records the XXH64 of its stored bytes (since the fields `xxh64`, `source` and
/// `importedAt` were added; files without them still load, unchecked), so a file changed after import is refused.
///
/// Tensor layouts: a convolution named `N` (batch-norm folded in) stores `N.weight` as
/// `[kernel·kernel·inChannels, outChannels]` (row order kh, kw, cin: channels-last patches) and `N.bias`
/// as `[outChannels]`; `fc.weight` is `[features, classes]` (transposed from PyTorch). A 3×3 stride-1
/// convolution whose output is at least 14×14 at the model's input size stores instead `N.winograd`,
/// its Winograd F(2×2, 3×3) weights `U = G g Gᵀ` as `[16, inChannels, outChannels]`.
public enum ModelFile {
    static let magic: [UInt8] = Array("PGMODEL\0".utf8)
    static let version: UInt32 = 1
    /// File extension of model files.
    public static let pathExtension = "pgmodel"

    /// Writes `tensors` (float32 values by name, in `manifest.tensors` order) to `url`, atomically, with each
    /// tensor's checksum in the header.
    static func write(manifest: ModelManifest, tensors: [String: [Float]], to url: URL) throws {
        var manifest = manifest
        var offset = 0
        for index in manifest.tensors.indices {
            manifest.tensors[index].offset = offset
            offset += (manifest.tensors[index].count * manifest.precision.bytesPerValue + 63) / 64 * 64
        }
        // The data comes first so the header can carry its checksums.
        var payload = Data(capacity: offset)
        for index in manifest.tensors.indices {
            let tensor = manifest.tensors[index]
            guard let values = tensors[tensor.name], values.count == tensor.count else {
                throw ClassifierError.missingTensor(tensor.name)
            }
            let bytes: Data
            switch manifest.precision {
            case .float32:
                bytes = values.withUnsafeBufferPointer { Data(buffer: $0) }
            case .float16:
                let halves = values.map { Float16($0).bitPattern }
                bytes = halves.withUnsafeBufferPointer { Data(buffer: $0) }
            }
            manifest.tensors[index].xxh64 = bytes.withUnsafeBytes { checksum(of: $0) }
            payload.append(bytes)
            payload.append(Data(count: (64 - payload.count % 64) % 64))
        }
        let header = try headerEncoder().encode(manifest)
        var file = Data(magic)
        append(UInt32(version), to: &file)
        append(UInt32(header.count), to: &file)
        file.append(header)
        file.append(Data(count: (64 - file.count % 64) % 64))
        file.append(payload)
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try file.write(to: url, options: .atomic)
        } catch {
            throw ClassifierError.unreadableFile(path: url.path, reason: "cannot write: \((error as NSError).localizedDescription)")
        }
    }

    /// The checksum recorded for a tensor's stored bytes: XXH64 (seed 0) as 16 hex digits.
    static func checksum(of bytes: UnsafeRawBufferPointer) -> String {
        let value = bytes.baseAddress.map { pg_xxh64($0, bytes.count, 0) } ?? pg_xxh64(nil, 0, 0)
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// Whether the model file at `url` still holds the weights it was written with.
    public enum Integrity: String, Sendable, Codable {
        /// Every tensor matches its recorded checksum.
        case intact
        /// The file was written before PlantGuide recorded checksums: nothing to check against.
        case unknown
    }

    /// Reads every tensor of the model file at `url` and checks it against its recorded checksum, as loading
    /// does, without building the network.
    /// - Throws: ``ClassifierError/modelFileChanged(path:tensor:)`` for the first tensor that differs, or why the
    ///   file cannot be read.
    public static func verify(at url: URL) throws -> Integrity {
        let (manifest, handle, dataStart, _) = try open(url)
        defer { try? handle.close() }
        let reader = TensorReader(handle: handle, dataStart: dataStart, precision: manifest.precision, url: url)
        for tensor in manifest.tensors where tensor.xxh64 != nil {
            _ = try reader.read(tensor)
        }
        return manifest.hasChecksums ? .intact : .unknown
    }

    static func headerEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }

    /// Reads only the header of the model file at `url`.
    public static func manifest(at url: URL) throws -> ModelManifest {
        try open(url).manifest
    }

    /// Opens `url`, validates the header, and returns it with a handle positioned anywhere.
    static func open(_ url: URL) throws -> (manifest: ModelManifest, handle: FileHandle, dataStart: UInt64, size: UInt64) {
        let handle: FileHandle
        do {
            handle = try FileHandle(forReadingFrom: url)
        } catch {
            throw ClassifierError.unreadableFile(path: url.path, reason: (error as NSError).localizedDescription)
        }
        do {
            let size = try handle.seekToEnd()
            try handle.seek(toOffset: 0)
            let prefix = try handle.read(upToCount: 16) ?? Data()
            guard prefix.count == 16, Array(prefix.prefix(8)) == magic else {
                throw ClassifierError.invalidModelFile("\(url.lastPathComponent) does not start with the PlantGuide model magic")
            }
            let version = prefix.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 8, as: UInt32.self) }
            let headerLength = Int(prefix.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 12, as: UInt32.self) })
            guard UInt32(littleEndian: version) == Self.version else {
                throw ClassifierError.invalidModelFile("format version \(version) is not supported (this build reads \(Self.version))")
            }
            guard headerLength < 16 << 20, UInt64(16 + headerLength) <= size,
                let header = try handle.read(upToCount: headerLength), header.count == headerLength
            else { throw ClassifierError.invalidModelFile("the header is truncated") }
            let manifest: ModelManifest
            do {
                let decoder = JSONDecoder()
                decoder.dateDecodingStrategy = .iso8601
                manifest = try decoder.decode(ModelManifest.self, from: header)
            } catch {
                throw ClassifierError.invalidModelFile("the header is not valid: \(error)")
            }
            let dataStart = UInt64((16 + headerLength + 63) / 64 * 64)
            for tensor in manifest.tensors {
                // Checked for overflow: a damaged header's sizes must not trap, and past this point `count` is safe.
                var bytes = manifest.precision.bytesPerValue, overflow = false
                for dimension in tensor.shape {
                    let (product, overflowed) = bytes.multipliedReportingOverflow(by: dimension)
                    bytes = product
                    overflow = overflow || overflowed || dimension <= 0
                }
                guard tensor.offset >= 0, !overflow, UInt64(tensor.offset) <= size, UInt64(bytes) <= size - UInt64(tensor.offset),
                    dataStart <= size - UInt64(tensor.offset) - UInt64(bytes)
                else { throw ClassifierError.invalidModelFile("tensor \(tensor.name) lies outside the file (truncated?)") }
            }
            return (manifest, handle, dataStart, size)
        } catch {
            try? handle.close()
            throw error
        }
    }

    private static func append(_ value: UInt32, to data: inout Data) {
        withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) }
    }
}

/// Reads the tensors of an open model file, one at a time, into a single buffer that grows to the largest and is
/// reused: fresh memory for every tensor cost the kernel a page fault per 4 KiB, which was most of a model's load time.
/// Each tensor is checked against its recorded checksum, when the file has one.
final class TensorReader {
    private let handle: FileHandle
    private let dataStart: UInt64
    private let precision: WeightPrecision
    private let url: URL
    private var buffer = UnsafeMutableRawBufferPointer(start: nil, count: 0)

    init(handle: FileHandle, dataStart: UInt64, precision: WeightPrecision, url: URL) {
        self.handle = handle
        self.dataStart = dataStart
        self.precision = precision
        self.url = url
    }

    deinit { buffer.deallocate() }

    /// The stored bytes of `tensor`, valid until the next call.
    /// - Throws: ``ClassifierError/invalidModelFile(_:)`` when the file ends inside the tensor,
    ///   ``ClassifierError/modelFileChanged(path:tensor:)`` when its checksum differs, or why it cannot be read.
    func read(_ tensor: ModelManifest.Tensor) throws -> UnsafeRawBufferPointer {
        let byteCount = tensor.count * precision.bytesPerValue
        if buffer.count < byteCount {
            buffer.deallocate()
            buffer = .allocate(byteCount: byteCount, alignment: 64)
        }
        guard let base = buffer.baseAddress else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        var done = 0
        while done < byteCount {
            let offset = off_t(dataStart) + off_t(tensor.offset) + off_t(done)
            let count = pread(handle.fileDescriptor, base + done, byteCount - done, offset)
            if count < 0 {
                if errno == EINTR { continue }
                throw ClassifierError.unreadableFile(path: url.path, reason: String(cString: strerror(errno)))
            }
            guard count > 0 else { throw ClassifierError.invalidModelFile("tensor \(tensor.name) is truncated") }
            done += count
        }
        let bytes = UnsafeRawBufferPointer(start: base, count: byteCount)
        if let expected = tensor.xxh64, ModelFile.checksum(of: bytes) != expected.lowercased() {
            throw ClassifierError.modelFileChanged(path: url.path, tensor: tensor.name)
        }
        return bytes
    }
}
