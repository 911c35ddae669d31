import PlantNetStub

/// Runs `body` with a fresh Pl@ntNet stub started with `behaviour`, and stops it afterwards whatever happens.
@discardableResult
public func withStub<T>(
    _ behaviour: PlantNetStubBehaviour = PlantNetStubBehaviour(), _ body: (PlantNetStub) async throws -> T
) async throws -> T {
    let stub = try await PlantNetStub.start(behaviour: behaviour)
    do {
        let result = try await body(stub)
        await stub.stop()
        return result
    } catch {
        await stub.stop()
        throw error
    }
}
