import Foundation
import PlantGuideCore
import Synchronization
import Testing
@testable import PlantClassifier

/// `OnDeviceIdentifier.limited(to:)`: an on-device identification that overruns fails instead of hanging.
@Suite struct OnDeviceTimeoutTests {
    let photo = FixtureModels.url("leaf.jpg")

    /// Set when the work behind an identifier has run to its end.
    private final class Finished: Sendable {
        private let value = Mutex(false)
        var isSet: Bool { value.withLock { $0 } }
        func set() { value.withLock { $0 = true } }
    }

    /// The real classifier, made slow the honest way: it identifies the photo `rounds` times before answering.
    private func slowIdentifier(rounds: Int, finished: Finished) throws -> (OnDeviceIdentifier, URL) {
        let (file, _) = try FixtureModels.importModel(.resnet18, precision: .float16)
        let classifier = try Classifier(contentsOf: file, threads: 1)
        let identifier = OnDeviceIdentifier { photos, top in
            var answer: Identification?
            for _ in 0..<rounds { answer = try classifier.identify(photos: photos, top: top, threshold: 0.5) }
            finished.set()
            return try #require(answer)
        }
        return (identifier, file)
    }

    @Test func anOverrunFailsWithATypedError() async throws {
        let finished = Finished()
        let (slow, file) = try slowIdentifier(rounds: 200, finished: finished)
        defer { FixtureModels.remove(file) }
        let limited = slow.limited(to: .milliseconds(5))
        let error = await #expect(throws: ClassifierError.self) {
            try await limited.identify([try Data(contentsOf: photo)], 5)
        }
        // The deadline decided, not the work: had the 200 identifications ended first, their answer would have won.
        #expect(error == .timedOut(limit: .milliseconds(5)))
        let message = "\(try #require(error))"
        #expect(message.contains("longer than 0.005 s"))
        #expect(message.contains("--on-device-timeout"))
    }

    @Test func anIdentificationWithinTheLimitIsUnchanged() async throws {
        let finished = Finished()
        let (identifier, file) = try slowIdentifier(rounds: 1, finished: finished)
        defer { FixtureModels.remove(file) }
        let photos = [try Data(contentsOf: photo)]
        let direct = try await identifier.identify(photos, 5)
        let limited = try await identifier.limited(to: OnDeviceIdentifier.defaultTimeout).identify(photos, 5)
        #expect(limited.predictions.map(\.scientificName) == direct.predictions.map(\.scientificName))
        #expect(limited.predictions.map(\.confidence) == direct.predictions.map(\.confidence))
        #expect(finished.isSet)
    }

    @Test func theWorksOwnErrorIsPassedOn() async throws {
        let finished = Finished()
        let (identifier, file) = try slowIdentifier(rounds: 1, finished: finished)
        defer { FixtureModels.remove(file) }
        let limited = identifier.limited(to: .seconds(10))
        let error = await #expect(throws: (any Error).self) {
            try await limited.identify([Data("not a photo".utf8)], 5)
        }
        // The decoder's own error, not a time-out.
        #expect(error != nil && !(error is ClassifierError))
        #expect(finished.isSet == false)
    }

    @Test func timeSpentWaitingForAWorkerIsNotCounted() async throws {
        let (file, _) = try FixtureModels.importModel(.resnet18, precision: .float16)
        defer { FixtureModels.remove(file) }
        let classifier = try Classifier(contentsOf: file, threads: 1)
        let photos = [try Data(contentsOf: photo)]
        // One worker thread, like a busy pool. Someone else's identifications hold it until both of ours are queued
        // behind them, and for 200 more: far longer than the limit, which one identification alone stays well under.
        let worker = DispatchQueue(label: "test.worker")
        let queued = Mutex(0)
        let onWorker = { @Sendable (started: @escaping @Sendable () -> Void) async throws -> Identification in
            try await withCheckedThrowingContinuation { continuation in
                worker.async {
                    started()
                    continuation.resume(with: Result { try classifier.identify(photos: photos, top: 5, threshold: 0.5) })
                }
                queued.withLock { $0 += 1 }
            }
        }
        worker.async {
            var after = 0
            while after < 200 {
                _ = try? classifier.identify(photos: photos, top: 5, threshold: 0.5)
                if queued.withLock({ $0 }) == 2 { after += 1 }
            }
        }
        let limit = Duration.seconds(2)
        let countedFromTheStart = OnDeviceIdentifier { _, _ in try await onWorker {} }.limited(to: limit)
        let countedFromTheWorker = OnDeviceIdentifier.limited(to: limit) { _, _, started in try await onWorker(started) }
        let waitedTooLong = Task { try await countedFromTheStart.identify(photos, 5) }
        let answered = Task { try await countedFromTheWorker.identify(photos, 5) }
        await #expect(throws: ClassifierError.timedOut(limit: limit)) { try await waitedTooLong.value }
        #expect(try await answered.value.predictions.count == 5)
    }

    @Test(arguments: [
        (nil, 10.0), ("", 10.0), ("20", 20.0), ("0.5", 0.5), (" 3 ", 3.0), ("0", nil), ("-1", nil), ("soon", nil), ("7200", nil),
    ] as [(String?, Double?)])
    func theServersLimitComesFromTheEnvironment(value: String?, seconds: Double?) {
        let environment = value.map { [OnDeviceIdentifier.timeoutEnvironmentVariable: $0] } ?? [:]
        #expect(OnDeviceIdentifier.timeout(environment: environment)?.inSeconds == seconds)
    }
}
