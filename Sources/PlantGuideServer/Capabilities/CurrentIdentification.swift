import Synchronization

/// The identification capability in force. Saving a Pl@ntNet key in Settings replaces it while the server
/// runs, so routes read it once per request rather than keeping the one the router was built with.
public final class CurrentIdentification: Sendable {
    private let current: Mutex<IdentificationCapability?>

    /// Holds `capability` until it is replaced.
    public init(_ capability: IdentificationCapability?) {
        current = Mutex(capability)
    }

    /// The capability now; `nil` when identification is not set up.
    public var capability: IdentificationCapability? { current.withLock { $0 } }

    /// Puts `capability` in force for every request from now on.
    public func replace(with capability: IdentificationCapability?) {
        current.withLock { $0 = capability }
    }
}
