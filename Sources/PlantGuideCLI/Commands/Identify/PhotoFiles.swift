import Foundation

/// Turns `identify`'s arguments into photo files: folders are listed (images only, sorted), files kept.
enum PhotoFiles {
    static let imageExtensions: Set<String> = ["jpg", "jpeg", "png", "webp", "heic", "heif"]

    /// The photos named by `arguments`, and whether any argument was a folder.
    static func expand(_ arguments: [String]) throws -> (files: [String], sawFolder: Bool) {
        var files: [String] = []
        var sawFolder = false
        for argument in arguments {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: argument, isDirectory: &isFolder) else {
                throw IdentifyCommandError.missingPhoto(argument)
            }
            guard isFolder.boolValue else {
                files.append(argument)
                continue
            }
            sawFolder = true
            let names = (try? FileManager.default.contentsOfDirectory(atPath: argument)) ?? []
            files += names.filter { imageExtensions.contains(($0 as NSString).pathExtension.lowercased()) }.sorted()
                .map { (argument as NSString).appendingPathComponent($0) }
        }
        guard !files.isEmpty else { throw IdentifyCommandError.noPhotos }
        return (files, sawFolder)
    }
}
