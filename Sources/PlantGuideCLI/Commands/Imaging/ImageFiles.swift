import Foundation

/// Reading and writing the files the `image` commands work on, with one-line errors.
enum ImageFiles {
    static func read(_ path: String) throws(ImageCommandError) -> Data {
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path), options: .mappedIfSafe)
        } catch {
            let reason = FileManager.default.fileExists(atPath: path) ? "the file cannot be opened" : "no such file"
            throw .unreadable(path: path, reason: reason)
        }
    }

    static func write(_ data: Data, to path: String) throws(ImageCommandError) {
        do {
            try data.write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw .unwritable(path: path, reason: "check that the folder exists and is writable")
        }
    }
}
