import Foundation

/// A pickle reader that builds only plain data and tensor references. Python's pickle is a small
/// program; this interpreter knows the opcodes a `torch.save`d state dict uses and resolves GLOBAL only
/// against ``AllowedGlobal``, so a checkpoint cannot make it call anything.
struct Unpickler {
    private var reader: ByteReader
    private var stack: [PickleValue] = []
    private var marks: [Int] = []
    private var memo: [Int: PickleValue] = [:]

    /// Parses `bytes`; the result must not outlive them.
    static func load(_ data: Data) throws -> PickleValue {
        try data.withUnsafeBytes { bytes in
            var unpickler = Unpickler(reader: ByteReader(bytes, failure: { .corruptPickle($0) }))
            return try unpickler.run()
        }
    }

    private init(reader: ByteReader) {
        self.reader = reader
    }

    private mutating func run() throws -> PickleValue {
        while true {
            let opcode = try reader.byte()
            switch opcode {
            case 0x80: _ = try reader.byte()  // PROTO
            case 0x95: try reader.skip(8)  // FRAME (protocol 4): only a length hint
            case 0x2E:  // STOP
                return try pop()
            case 0x28: marks.append(stack.count)  // MARK
            case 0x4E: stack.append(.none)  // NONE
            case 0x88: stack.append(.bool(true))  // NEWTRUE
            case 0x89: stack.append(.bool(false))  // NEWFALSE
            case 0x4B: stack.append(.int(Int(try reader.byte())))  // BININT1
            case 0x4D: stack.append(.int(Int(try reader.integer(UInt16.self))))  // BININT2
            case 0x4A: stack.append(.int(Int(try reader.integer(Int32.self))))  // BININT
            case 0x8A:  // LONG1
                let length = Int(try reader.byte())
                stack.append(.int(try littleEndianSigned(try reader.slice(length))))
            case 0x47: stack.append(.float(try reader.bigEndianDouble()))  // BINFLOAT
            case 0x58:  // BINUNICODE
                let length = Int(try reader.integer(UInt32.self))
                stack.append(.string(String(decoding: try reader.slice(length), as: UTF8.self)))
            case 0x8C:  // SHORT_BINUNICODE
                let length = Int(try reader.byte())
                stack.append(.string(String(decoding: try reader.slice(length), as: UTF8.self)))
            case 0x43:  // SHORT_BINBYTES
                let length = Int(try reader.byte())
                stack.append(.bytes(Array(try reader.slice(length))))
            case 0x42:  // BINBYTES
                let length = Int(try reader.integer(UInt32.self))
                stack.append(.bytes(Array(try reader.slice(length))))
            case 0x29: stack.append(.tuple([]))  // EMPTY_TUPLE
            case 0x85: stack.append(.tuple([try pop()]))  // TUPLE1
            case 0x86:  // TUPLE2
                let second = try pop()
                stack.append(.tuple([try pop(), second]))
            case 0x87:  // TUPLE3
                let third = try pop(), second = try pop()
                stack.append(.tuple([try pop(), second, third]))
            case 0x74: stack.append(.tuple(try popToMark()))  // TUPLE
            case 0x5D: stack.append(.list(PickleList()))  // EMPTY_LIST
            case 0x6C:  // LIST
                let list = PickleList()
                list.items = try popToMark()
                stack.append(.list(list))
            case 0x7D: stack.append(.dict(PickleDict()))  // EMPTY_DICT
            case 0x61:  // APPEND
                let item = try pop()
                try list(onTop: "APPEND").items.append(item)
            case 0x65:  // APPENDS
                let items = try popToMark()
                try list(onTop: "APPENDS").items.append(contentsOf: items)
            case 0x73:  // SETITEM
                let value = try pop(), key = try pop()
                try dict(onTop: "SETITEM").entries.append((key, value))
            case 0x75:  // SETITEMS
                let items = try popToMark()
                guard items.count % 2 == 0 else { throw ClassifierError.corruptPickle("SETITEMS with an odd item count") }
                let dict = try dict(onTop: "SETITEMS")
                for index in stride(from: 0, to: items.count, by: 2) { dict.entries.append((items[index], items[index + 1])) }
            case 0x71: memo[Int(try reader.byte())] = try top()  // BINPUT
            case 0x72: memo[Int(try reader.integer(UInt32.self))] = try top()  // LONG_BINPUT
            case 0x94: memo[memo.count] = try top()  // MEMOIZE
            case 0x68: stack.append(try memoized(Int(try reader.byte())))  // BINGET
            case 0x6A: stack.append(try memoized(Int(try reader.integer(UInt32.self))))  // LONG_BINGET
            case 0x63:  // GLOBAL "module\nname\n"
                let module = try line(), name = try line()
                stack.append(.global(try allowed(module: module, name: name)))
            case 0x93:  // STACK_GLOBAL
                guard case .string(let name) = try pop(), case .string(let module) = try pop() else {
                    throw ClassifierError.corruptPickle("STACK_GLOBAL without two strings")
                }
                stack.append(.global(try allowed(module: module, name: name)))
            case 0x51: stack.append(try persistentLoad(try pop()))  // BINPERSID
            case 0x52:  // REDUCE
                let arguments = try pop(), callable = try pop()
                stack.append(try reduce(callable, arguments))
            case 0x62:  // BUILD: sets attributes (OrderedDict's `_metadata`); data we don't need
                _ = try pop()
                switch try top() {
                case .dict, .tensor: break
                default: throw ClassifierError.corruptPickle("BUILD on an object that is not a dict or tensor")
                }
            case 0x30: _ = try pop()  // POP
            case 0x32: stack.append(try top())  // DUP
            default:
                throw ClassifierError.corruptPickle(
                    "unsupported opcode 0x\(String(opcode, radix: 16)) at byte \(reader.position - 1)"
                )
            }
        }
    }

    private func allowed(module: String, name: String) throws -> AllowedGlobal {
        guard let global = AllowedGlobal(module: module, name: name) else {
            throw ClassifierError.forbiddenGlobal(module: module, name: name)
        }
        return global
    }

    private func reduce(_ callable: PickleValue, _ arguments: PickleValue) throws -> PickleValue {
        guard case .global(let global) = callable, case .tuple(let args) = arguments else {
            throw ClassifierError.corruptPickle("REDUCE needs a global and a tuple")
        }
        switch global {
        case .orderedDict:
            return .dict(PickleDict())
        case .rebuildTensor:
            guard args.count >= 4, case .storage(let storage) = args[0], case .int(let offset) = args[1],
                case .tuple(let shapeValues) = args[2], case .tuple(let strideValues) = args[3]
            else { throw ClassifierError.corruptPickle("malformed _rebuild_tensor_v2 arguments") }
            let shape = try shapeValues.map(integer), strides = try strideValues.map(integer)
            guard shape.count == strides.count, offset >= 0, shape.allSatisfy({ $0 >= 0 }), strides.allSatisfy({ $0 >= 0 }) else {
                throw ClassifierError.corruptPickle("tensor shape and strides disagree")
            }
            return .tensor(TensorReference(storage: storage, offset: offset, shape: shape, strides: strides))
        case .rebuildParameter:
            guard let first = args.first, case .tensor = first else {
                throw ClassifierError.corruptPickle("malformed _rebuild_parameter arguments")
            }
            return first
        case .codecsEncode:
            guard let first = args.first, case .string(let text) = first else {
                throw ClassifierError.corruptPickle("malformed _codecs.encode arguments")
            }
            // Protocol 2 writes bytes as latin-1 text: each character is one byte.
            return .bytes(text.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) })
        case .storageType:
            throw ClassifierError.corruptPickle("a storage type cannot be called")
        }
    }

    private func persistentLoad(_ id: PickleValue) throws -> PickleValue {
        guard case .tuple(let parts) = id, parts.count >= 5, case .string("storage") = parts[0],
            case .global(.storageType(let dtype)) = parts[1], case .string(let key) = parts[2],
            case .int(let count) = parts[4], count >= 0
        else { throw ClassifierError.corruptPickle("unknown persistent id") }
        return .storage(StorageReference(key: key, dtype: dtype, elementCount: count))
    }

    private func integer(_ value: PickleValue) throws -> Int {
        guard case .int(let number) = value else { throw ClassifierError.corruptPickle("expected an integer") }
        return number
    }

    private func littleEndianSigned(_ bytes: UnsafeRawBufferPointer) throws -> Int {
        guard bytes.count <= 8 else { throw ClassifierError.corruptPickle("integer too large") }
        guard !bytes.isEmpty else { return 0 }
        var value: UInt64 = 0
        for (index, byte) in bytes.enumerated() { value |= UInt64(byte) << (8 * UInt64(index)) }
        if bytes.count < 8, bytes[bytes.count - 1] & 0x80 != 0 { value |= ~0 << (8 * UInt64(bytes.count)) }
        return Int(Int64(bitPattern: value))
    }

    private mutating func line() throws -> String {
        var characters: [UInt8] = []
        while true {
            let byte = try reader.byte()
            if byte == 0x0A { break }
            characters.append(byte)
            guard characters.count < 256 else { throw ClassifierError.corruptPickle("GLOBAL name too long") }
        }
        return String(decoding: characters, as: UTF8.self)
    }

    private mutating func pop() throws -> PickleValue {
        guard let value = stack.popLast() else { throw ClassifierError.corruptPickle("stack underflow") }
        if let mark = marks.last, mark > stack.count { throw ClassifierError.corruptPickle("popped past a mark") }
        return value
    }

    private func top() throws -> PickleValue {
        guard let value = stack.last else { throw ClassifierError.corruptPickle("stack underflow") }
        return value
    }

    private mutating func popToMark() throws -> [PickleValue] {
        guard let mark = marks.popLast(), mark <= stack.count else { throw ClassifierError.corruptPickle("missing MARK") }
        let items = Array(stack[mark...])
        stack.removeSubrange(mark...)
        return items
    }

    private func memoized(_ index: Int) throws -> PickleValue {
        guard let value = memo[index] else { throw ClassifierError.corruptPickle("memo \(index) read before written") }
        return value
    }

    private func list(onTop opcode: String) throws -> PickleList {
        guard case .list(let list) = try top() else { throw ClassifierError.corruptPickle("\(opcode) without a list") }
        return list
    }

    private func dict(onTop opcode: String) throws -> PickleDict {
        guard case .dict(let dict) = try top() else { throw ClassifierError.corruptPickle("\(opcode) without a dict") }
        return dict
    }
}
