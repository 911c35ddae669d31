import Dispatch

/// Splits `0..<count` into at most `threads` contiguous ranges and runs `body` on them in parallel.
/// Small jobs run inline: dispatching costs more than it saves below a few thousand elements.
/// `body` must only write to disjoint parts of memory for disjoint ranges.
func parallelRanges(_ count: Int, threads: Int, minimumPerThread: Int = 16_384, _ body: (Range<Int>) -> Void) {
    let chunks = min(max(1, threads), max(1, count / max(1, minimumPerThread)))
    if chunks <= 1 {
        body(0..<count)
        return
    }
    withoutActuallyEscaping(body) { body in
        // The ranges are disjoint and `concurrentPerform` returns only when all are done.
        let work = UncheckedSendable(value: body)
        DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
            work.value((count * chunk / chunks)..<(count * (chunk + 1) / chunks))
        }
    }
}

/// Carries a value into a `@Sendable` closure where the caller guarantees safe use.
private struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
}
