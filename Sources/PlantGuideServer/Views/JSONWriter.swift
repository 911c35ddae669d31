import NIOCore
import PlantGuideCore

/// An API answer that writes its own JSON, byte for byte what ``JSONResponse/encoder`` gives (sorted keys, slashes
/// as they are), for the answers asked for often enough that JSONEncoder's cost shows in the server's throughput.
protocol JSONWritable: Encodable {
    /// Writes the value.
    func write(to writer: inout JSONWriter)
}

/// Writes JSON straight into bytes. Strings with control characters are left to JSONEncoder (``failed`` is
/// set), so only the plain escapes (quote and backslash) are written here.
struct JSONWriter {
    private(set) var bytes: [UInt8] = []
    /// Whether a value could not be written the way JSONEncoder writes it; the caller then uses JSONEncoder.
    private(set) var failed = false

    init(capacity: Int = 1024) {
        bytes.reserveCapacity(capacity)
    }

    /// The JSON written, in one buffer for the answer.
    var buffer: ByteBuffer { ByteBuffer(bytes: bytes) }

    /// Punctuation and keys, written as they are.
    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    mutating func int(_ value: Int) {
        bytes.append(contentsOf: String(value).utf8)
    }

    mutating func string(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            // Names rarely hold a quote or backslash: copy runs between them in one go.
            var start = 0
            for index in utf8.indices {
                let byte = utf8[index]
                guard byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 else { continue }
                if byte < 0x20 { failed = true }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
                bytes.append(UInt8(ascii: "\\"))
                bytes.append(byte)
                start = index + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    mutating func array<Element>(_ elements: some Sequence<Element>, _ write: (inout JSONWriter, Element) -> Void) {
        raw("[")
        var first = true
        for element in elements {
            if !first { raw(",") }
            first = false
            write(&self, element)
        }
        raw("]")
    }
}

extension CatalogPlant: JSONWritable {
    func write(to writer: inout JSONWriter) {
        writer.raw(#"{"category":"#)
        writer.string(category.rawValue)
        writer.raw(#","commonNames":"#)
        writer.array(commonNames) { $0.string($1) }
        writer.raw(#","family":"#)
        writer.string(family)
        writer.raw(#","formerNames":"#)
        writer.array(formerNames) { $0.string($1) }
        writer.raw(#","scientificName":"#)
        writer.string(scientificName)
        writer.raw("}")
    }
}

extension PlantListBody: JSONWritable {
    func write(to writer: inout JSONWriter) {
        writer.raw(#"{"count":"#)
        writer.int(count)
        writer.raw(#","plants":"#)
        writer.array(plants) { $1.write(to: &$0) }
        writer.raw("}")
    }
}

extension PlantDetailBody: JSONWritable {
    func write(to writer: inout JSONWriter) {
        writer.raw(#"{"plant":"#)
        plant.write(to: &writer)
        writer.raw(#","related":"#)
        writer.array(related) { $1.write(to: &$0) }
        writer.raw("}")
    }
}
