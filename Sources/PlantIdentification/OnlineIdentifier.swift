import Foundation
import PlantGuideCore
import PlantNetAPI

/// The online half of the hybrid: identifies one plant from raw photos with Pl@ntNet. A struct of closures so
/// the hybrid can be tested with a fake, and so the live value can choose how photos are prepared.
public struct OnlineIdentifier: Sendable {
    /// Identifies one plant from raw photo files, one organ per photo.
    public var identify: @Sendable (_ photos: [Data], _ organs: [PlantNetOrgan], _ options: PlantNetOptions) async throws
        -> PlantNetAnswer

    /// Creates an identifier from its implementation.
    public init(
        identify: @escaping @Sendable (_ photos: [Data], _ organs: [PlantNetOrgan], _ options: PlantNetOptions) async throws
            -> PlantNetAnswer
    ) {
        self.identify = identify
    }

    /// The live identifier: each photo goes through `prepare` (re-encode, hash), then to `service`
    /// (cache, quota, offline back-off, HTTP).
    public static func live(
        service: PlantNetService, prepare: @escaping @Sendable (Data, PlantNetOrgan) throws -> PlantNetImage
    ) -> OnlineIdentifier {
        OnlineIdentifier { photos, organs, options in
            let started = ContinuousClock.now
            var images: [PlantNetImage] = []
            for (index, photo) in photos.enumerated() {
                let organ = index < organs.count ? organs[index] : .auto
                images.append(try prepare(photo, organ))
            }
            let prepared = ContinuousClock.now - started
            var answer = try await service.identify(images, options: options)
            answer.identification.timings[stage: .prepareUpload] = prepared.inMilliseconds
            return answer
        }
    }
}
