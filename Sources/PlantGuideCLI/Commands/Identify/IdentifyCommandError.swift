/// Failures of `identify` outside the model itself.
enum IdentifyCommandError: Error, CustomStringConvertible {
    case missingPhoto(String)
    case unreadablePhoto(String)
    case noPhotos
    case noModel(dataDirectory: String)
    case someFailed(Int, of: Int)

    var description: String {
        switch self {
        case .missingPhoto(let path): "No such photo or folder: \(path)"
        case .unreadablePhoto(let path): "Cannot read \(path)"
        case .noPhotos: "No photos found (looked for .jpg, .jpeg, .png, .webp, .heic)."
        case .noModel(let directory):
            """
            No on-device model is installed (looked in \(directory)/models).
            Install one with:
              plantguide model install                  download the PlantNet-300K ResNet50 (about 100 MB)
              plantguide model install FILE             use a downloaded <arch>_weights_best_acc.tar
            or pass --model FILE, or identify online with the Pl@ntNet API (set PLANTNET_API_KEY).
            """
        case .someFailed(let failed, let total): "\(failed) of \(total) photos could not be identified."
        }
    }
}
