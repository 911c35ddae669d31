/// Failures of `identify` outside the model itself.
enum IdentifyCommandError: Error, CustomStringConvertible {
    case missingPhoto(String)
    case unreadablePhoto(String)
    case noPhotos
    case someFailed(Int, of: Int)

    var description: String {
        switch self {
        case .missingPhoto(let path): "Cannot read the photo '\(path)': no such file or folder."
        case .unreadablePhoto(let path): "Cannot read \(path)"
        case .noPhotos: "No photos found (looked for .jpg, .jpeg, .png, .webp, .heic)."
        case .someFailed(let failed, let total): "\(failed) of \(total) photos could not be identified."
        }
    }

    /// How to get an on-device model, also used as the hybrid identifier's reason when it has none. Setting
    /// PLANTNET_API_KEY is suggested only when no key is configured; with one, the way to use it is.
    static func noModelAdvice(dataDirectory: String, apiKeyConfigured: Bool) -> String {
        let online = apiKeyConfigured
            ? "or identify online with the Pl@ntNet API (--strategy api; a key is configured)."
            : "or identify online with the Pl@ntNet API (set PLANTNET_API_KEY or run `plantguide config set-api-key`)."
        return """
            no on-device model is installed (looked in \(dataDirectory)/models).
            Install one with:
              plantguide model install                  download the PlantNet-300K ResNet50 (about 100 MB)
              plantguide model install FILE             use a downloaded <arch>_weights_best_acc.tar
            or pass --model FILE, \(online)
            """
    }
}
