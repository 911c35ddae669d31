import Foundation
import PlantGuideCore
import PlantImaging

extension Classifier {
    /// How photos are prepared for this model, from the model file's metadata.
    public var inputSpec: ModelInputSpec {
        ModelInputSpec(resize: manifest.input.resize, crop: manifest.input.size, mean: manifest.input.mean, std: manifest.input.std)
    }

    /// Identifies one plant from several photos of it: decode and prepare each, run the network, average
    /// the probabilities (like smoothing over frames), merge classes of one binomial, keep the `top`.
    ///
    /// The mean of the photos' probabilities is the combined score: each photo counts once, whatever its
    /// size, and a species must do well on most photos to lead. The answer also says how many photos, each
    /// identified alone, had the combined best species first (``Identification/agreeingPhotos``).
    public func identify(
        photos: [Data], top: Int, threshold: Double, decoder: ImageDecoder = ImageDecoder(), now: Date = Date()
    ) throws -> Identification {
        guard !photos.isEmpty else { throw ClassifierError.badInput(expected: 1, found: 0) }
        let preprocessor = Preprocessor(spec: inputSpec, decoder: decoder)
        var sum = [Double](repeating: 0, count: manifest.classes)
        var decoding = 0.0, preprocessing = 0.0, inference = 0.0
        var photoBests: [String] = []
        for photo in photos {
            // The same work as `Preprocessor.tensor(fromFile:)`, with a clock read between its two halves.
            let start = ContinuousClock.now
            let image = try preprocessor.decode(photo)
            let decoded = ContinuousClock.now
            let tensor = preprocessor.tensor(from: image)
            let prepared = ContinuousClock.now
            let probabilities = try self.probabilities(tensor)
            let finished = ContinuousClock.now
            for index in sum.indices { sum[index] += Double(probabilities[index]) }
            if photos.count > 1, let best = predictions(from: probabilities, top: 1).first { photoBests.append(best.scientificName) }
            decoding += (decoded - start).inMilliseconds
            preprocessing += (prepared - decoded).inMilliseconds
            inference += (finished - prepared).inMilliseconds
        }
        let mean = sum.map { Float($0 / Double(photos.count)) }
        let ranked = predictions(from: mean, top: top).enumerated().map { rank, prediction in
            SpeciesPrediction(
                rank: rank + 1, scientificName: prediction.scientificName, authorship: prediction.authorship,
                confidence: prediction.probability, classIndex: prediction.classIndex
            )
        }
        let agreeing = ranked.first.map { best in photoBests.filter { $0 == best.scientificName }.count }
        return Identification(
            source: .onDevice, model: manifest.displayName, predictions: ranked,
            uncertain: (ranked.first?.confidence ?? 0) < threshold,
            timings: [
                IdentificationStage.decode.rawValue: decoding, IdentificationStage.preprocess.rawValue: preprocessing,
                IdentificationStage.inference.rawValue: inference,
            ],
            date: now,
            photoCount: photos.count, agreeingPhotos: photos.count > 1 ? agreeing : nil
        )
    }
}

extension OnDeviceIdentifier {
    /// The on-device identifier backed by a loaded `classifier`.
    /// - Parameters:
    ///   - threshold: below this best confidence the identification is marked uncertain.
    ///   - now: the clock stamped on identifications.
    public static func live(
        classifier: Classifier, threshold: Double = 0.7, decoder: ImageDecoder = ImageDecoder(),
        now: @escaping @Sendable () -> Date = Date.init
    ) -> OnDeviceIdentifier {
        OnDeviceIdentifier { photos, top in
            try classifier.identify(photos: photos, top: top, threshold: threshold, decoder: decoder, now: now())
        }
    }
}
