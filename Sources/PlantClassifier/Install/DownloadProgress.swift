import Foundation

/// Where a download stands: bytes so far, the size when known, and the speed and time left, averaged from the first
/// bytes this run saw (a resumed part does not count as speed). One home for what `model install` prints beside its bar
/// and what the web app's model card shows.
public struct DownloadProgress: Sendable, Equatable {
    public private(set) var received: Int64 = 0
    public private(set) var total: Int64?
    /// Bytes a second since this run's first bytes; `nil` in the first second.
    public private(set) var bytesPerSecond: Double?
    /// Time left at that speed, when the size is known.
    public private(set) var secondsLeft: Int?
    private var firstBytes: Int64?
    private var firstAt: ContinuousClock.Instant?

    public init() {}

    /// Records `received` of `total` bytes at `now`.
    public mutating func update(received: Int64, total: Int64?, now: ContinuousClock.Instant = .now) {
        self.received = received
        self.total = total
        guard let firstBytes, let firstAt else {
            self.firstBytes = received
            self.firstAt = now
            return
        }
        let elapsed = (now - firstAt) / .seconds(1)
        guard elapsed >= 1, received > firstBytes else { return }
        let speed = Double(received - firstBytes) / elapsed
        bytesPerSecond = speed
        secondsLeft = total.map { Int((Double(max(0, $0 - received)) / speed).rounded()) }
    }

    /// The download is over: no time is left.
    public mutating func finish() {
        secondsLeft = nil
    }

    /// 0–100 when the size is known.
    public var percent: Int? {
        guard let total, total > 0 else { return nil }
        return Int((Double(received) / Double(total) * 100).rounded(.down))
    }

    /// "40.1 of 98.4 MiB (40 %), 17.6 MiB/s, about 3 s left" (what is known of it); without the percentage where a bar
    /// shows it already.
    public func summary(percentage: Bool = true) -> String {
        let mib = { (bytes: Int64) in String(format: "%.1f", Double(bytes) / 1_048_576) }
        var text = total.map { "\(mib(received)) of \(mib($0)) MiB" } ?? "\(mib(received)) MiB"
        if percentage, let percent { text += " (\(percent) %)" }
        if let bytesPerSecond { text += String(format: ", %.1f MiB/s", bytesPerSecond / 1_048_576) }
        if let secondsLeft {
            text += secondsLeft >= 60 ? ", about \(secondsLeft / 60) min \(secondsLeft % 60) s left" : ", about \(secondsLeft) s left"
        }
        return text
    }
}
