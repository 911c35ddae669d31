import Foundation
import PlantGuideTestSupport
import PlantStore
import PlantStorePostgres
import PlantStoreSQLite
import Testing

/// What every replica shares: the Pl@ntNet state, accounts and log-ins.
typealias SharedStateStore = PlantNetStateStore & AccountStore

/// One connection to a test database, with the backend's concrete type: the suites of each store part read the part
/// they test from it (`extension TestStore { var plants: any PlantsStore }`), so a backend can be built and tested part
/// by part.
enum TestStore: Sendable {
    case sqlite(CollectionDatabase)
    case postgres(PostgresStore)

    /// How the store's kept care states and plant lists came to be: read whole, or brought up to date.
    var keeps: (care: HouseholdCache<PlantCareState>.Keeps, plants: HouseholdCache<Plant>.Keeps) {
        switch self {
        case .sqlite(let database): (database.careCache.keeps, database.plantCache.keeps)
        case .postgres(let store): (store.careCache.keeps, store.plantCache.keeps)
        }
    }

    /// The shared state (Pl@ntNet quota and cache, accounts and log-ins).
    var shared: any SharedStateStore {
        switch self {
        case .sqlite(let database): database
        case .postgres(let store): store
        }
    }
}

/// The stores the shared suites run on: every test runs once per backend.
enum StateBackend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    /// The test cluster `scripts/pg-cluster` starts: without it these cases fail, saying why.
    case postgres

    var testDescription: String { rawValue }

    /// Runs `body` with `count` connections to one fresh, empty database of this backend (two connections stand for
    /// two processes or replicas), and removes the database afterwards.
    func withStores<T: Sendable>(_ count: Int, _ body: ([any SharedStateStore]) async throws -> T) async throws -> T {
        try await withTestStores(count) { stores in try await body(stores.map(\.shared)) }
    }

    /// Runs `body` with `count` connections to one fresh, empty database of this backend, as their concrete types,
    /// and removes the database afterwards.
    func withTestStores<T: Sendable>(_ count: Int, _ body: ([TestStore]) async throws -> T) async throws -> T {
        switch self {
        case .sqlite:
            let home = try TemporaryHome()
            defer { home.cleanUp() }
            var stores: [TestStore] = []
            for _ in 0..<count { stores.append(.sqlite(try home.open())) }
            return try await body(stores)
        case .postgres:
            // One schema of the test's own; each store is a client (a pool) of its own, as a replica's is.
            return try await TestPostgres.withSchema { location, options in
                try await Self.openPostgres(count, location: location, options: options, opened: [], body)
            }
        }
    }

    private static func openPostgres<T: Sendable>(
        _ count: Int, location: PostgresLocation, options: PostgresStore.Options, opened: [TestStore],
        _ body: ([TestStore]) async throws -> T
    ) async throws -> T {
        guard opened.count < count else { return try await body(opened) }
        return try await PostgresStore.withStore(location, options: options) { store in
            try await openPostgres(count, location: location, options: options, opened: opened + [.postgres(store)], body)
        }
    }
}
