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

    /// Writes `tensors` (float32 values by name, in `manifest.tensors` order) to `url`, atomically.
    static func write(manifest: ModelManifest, tensors: [String: [Float]], to url: URL) throws {
        var manifest = manifest
        var offset = 0
        for index in manifest.tensors.indices {
            manifest.tensors[index].offset = offset
            offset += (manifest.tensors[index].count * manifest.precision.bytesPerValue + 63) / 64 * 64
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let header = try encoder.encode(manifest)
        var file = Data(magic)
        append(UInt32(version), to: &file)
        append(UInt32(header.count), to: &file)
        file.append(header)
        file.append(Data(count: (64 - file.count % 64) % 64))
        for tensor in manifest.tensors {
            guard let values = tensors[tensor.name], values.count == tensor.count else {
                throw ClassifierError.missingTensor(tensor.name)
            }
            switch manifest.precision {
            case .float32:
                values.withUnsafeBufferPointer { file.append(Data(buffer: $0)) }
            case .float16:
                let halves = values.map { Float16($0).bitPattern }
                halves.withUnsafeBufferPointer { file.append(Data(buffer: $0)) }
            }
            file.append(Data(count: (64 - file.count % 64) % 64))
        }
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try file.write(to: url, options: .atomic)
        } catch {
            throw ClassifierError.unreadableFile(path: url.path, reason: "cannot write: \((error as NSError).localizedDescription)")
        }
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
                manifest = try JSONDecoder().decode(ModelManifest.self, from: header)
            } catch {
                throw ClassifierError.invalidModelFile("the header is not valid: \(error)")
            }
            let dataStart = UInt64((16 + headerLength + 63) / 64 * 64)
            for tensor in manifest.tensors {
                guard tensor.offset >= 0, tensor.shape.allSatisfy({ $0 > 0 }),
                    dataStart + UInt64(tensor.offset + tensor.count * manifest.precision.bytesPerValue) <= size
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
