import Foundation
import PlantGuideCore
import PlantNetAPI

extension HybridIdentifier {
    /// Asks Pl@ntNet again about an identification from the re-check queue, and says what the queue should do with
    /// the outcome: record the (enriched) answer, count a failure of this item, or stop because nothing can be sent now.
    /// - Parameter organs: one organ name per photo (`leaf`, `flower`…); unknown names are sent as `auto`.
    public func recheck(photos: [Data], organs: [String], options: PlantNetOptions = PlantNetOptions()) async -> RecheckAnswer {
        guard let online else { return .stop(.notConfigured(onlineMissingReason)) }
        let parsed = organs.map { PlantNetOrgan(rawValue: $0) ?? .auto }
        do {
            let answer = try await online.identify(photos, parsed, options)
            if answer.identification.source == .plantNetAPI { await learn(from: answer.identification, language: options.language) }
            return .answered(await enricher.enriched(answer.identification), remainingRequests: answer.remainingRequests)
        } catch let error as PlantNetError {
            return Self.recheckAnswer(for: error)
        } catch {
            return .failed("\(error)")
        }
    }

    /// How the queue treats each failure: the service's state (offline, quota, key, a server error) stops the run and
    /// leaves the item queued; a problem of the item itself (its photos refused, an unreadable answer) counts against it.
    static func recheckAnswer(for error: PlantNetError) -> RecheckAnswer {
        error.recheckStop.map { .stop($0) } ?? .failed("\(error)")
    }
}
