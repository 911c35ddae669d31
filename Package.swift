// swift-tools-version: 6.1
// PlantGuide: plant identification and care, as a portable Swift core, a CLI and a self-hosted web app.
//
// Targets are declared per concern in the blocks below (see ../shared/DESIGN.md for the layering):
// each module owns one block, so work on one module rarely touches another's lines.
import PackageDescription

/// One set of settings for every target: Swift 6 language mode with strict concurrency.
let settings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
]

let argumentParser: Target.Dependency = .product(name: "ArgumentParser", package: "swift-argument-parser")
let multipartKit: Target.Dependency = .product(name: "MultipartKit", package: "multipart-kit")
let httpClient: [Target.Dependency] = ["PlantHTTP", .product(name: "AsyncHTTPClient", package: "async-http-client")]
let nio: [Target.Dependency] = [
    .product(name: "NIOCore", package: "swift-nio"),
    .product(name: "NIOPosix", package: "swift-nio"),
    .product(name: "NIOHTTP1", package: "swift-nio"),
]

// MARK: - Core: entities, errors, data directory. Foundation only.
let core: [Target] = [
    .target(name: "PlantGuideCore", swiftSettings: settings),
    .testTarget(name: "PlantGuideCoreTests", dependencies: ["PlantGuideCore"], swiftSettings: settings),
]

// MARK: - Catalog: bundled houseplant list, search and suggestions; and the builder that derives it.
let catalog: [Target] = [
    .target(
        name: "PlantCatalog",
        dependencies: ["PlantGuideCore"],
        resources: [.copy("Resources/houseplants.json"), .copy("Resources/species-directory.json")],
        swiftSettings: settings
    ),
    .target(name: "CatalogBuilding", dependencies: ["PlantGuideCore"], swiftSettings: settings),
    .executableTarget(
        name: "plantguide-catalog-build",
        dependencies: ["CatalogBuilding"],
        swiftSettings: settings
    ),
    .testTarget(
        name: "PlantCatalogTests",
        dependencies: ["PlantCatalog", "PlantGuideTestSupport"],
        swiftSettings: settings
    ),
    .testTarget(
        name: "CatalogBuildingTests",
        dependencies: ["CatalogBuilding"],
        swiftSettings: settings
    ),
]

// MARK: - Imaging: decode phone photos (JPEG, PNG, WebP, HEIC), model input tensors, upload JPEGs, hashes.
// The C libraries enter through system-library targets; CPlantImaging is a small C shim for the two libraries
// (libjpeg, libpng) whose error handling needs setjmp/longjmp, which Swift cannot call, and for the HEVC decoder
// plugin that lets libheif decode a single-picture HEIC on several threads (libde265 directly).
let imaging: [Target] = [
    .systemLibrary(name: "CJPEG", path: "Sources/CSystem/CJPEG", pkgConfig: "libjpeg", providers: [.apt(["libjpeg62-turbo-dev"])]),
    .systemLibrary(name: "CPNG", path: "Sources/CSystem/CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
    .systemLibrary(name: "CWebP", path: "Sources/CSystem/CWebP", pkgConfig: "libwebp", providers: [.apt(["libwebp-dev"])]),
    .systemLibrary(name: "CHeif", path: "Sources/CSystem/CHeif", pkgConfig: "libheif", providers: [.apt(["libheif-dev"])]),
    .systemLibrary(name: "CDe265", path: "Sources/CSystem/CDe265", pkgConfig: "libde265", providers: [.apt(["libde265-dev"])]),
    .target(name: "CPlantImaging", dependencies: ["CJPEG", "CPNG", "CHeif", "CDe265"]),
    .target(
        name: "PlantImaging",
        dependencies: ["PlantGuideCore", "CPlantImaging", "CWebP", "CHeif"],
        swiftSettings: settings
    ),
    .testTarget(
        name: "PlantImagingTests",
        dependencies: ["PlantImaging", "PlantGuideTestSupport"],
        resources: [.copy("Fixtures")],
        swiftSettings: settings
    ),
]

// MARK: - Outgoing HTTP: async-http-client with PlantGuide's settings (fail fast when offline, time-outs on progress,
// error classes), for the Pl@ntNet, Trefle and model-download clients. FoundationNetworking busy-waits on Linux.
let outgoingHTTP: [Target] = [
    .target(
        name: "PlantHTTP",
        dependencies: [
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
        ],
        swiftSettings: settings
    ),
]

// MARK: - Online identification: the Pl@ntNet v2 client (quota, cache, offline) and the hybrid identifier that
// combines it with the on-device classifier and enriches answers from the catalog.
let plantNet: [Target] = [
    .target(name: "PlantNetAPI", dependencies: ["PlantGuideCore", multipartKit] + httpClient, swiftSettings: settings),
    // The Pl@ntNet stand-in that `plantguide dev plantnet-stub` serves and the tests start: product code, so it
    // is its own module and PlantGuideTestSupport stays test-only.
    .target(name: "PlantNetStub", dependencies: nio + [multipartKit], swiftSettings: settings),
    .target(
        name: "PlantIdentification",
        dependencies: ["PlantGuideCore", "PlantCatalog", "PlantNetAPI"],
        swiftSettings: settings
    ),
    .testTarget(
        name: "PlantNetAPITests",
        dependencies: ["PlantNetAPI", "PlantIdentification", "PlantCatalog", "PlantGuideTestSupport"],
        swiftSettings: settings
    ),
]

// MARK: - Localization (#40): PlantGuide's own JSON string tables, CLDR plural rules and the language choice, read the
// same on Linux and Apple platforms (Foundation on Linux keeps one .lproj language per process and expands no plurals).
let localization: [Target] = [
    .target(name: "PlantLocalization", resources: [.copy("Resources/Localization")], swiftSettings: settings),
    .testTarget(name: "PlantLocalizationTests", dependencies: ["PlantLocalization"], swiftSettings: settings),
]

// MARK: - Store: the collection's interface (store protocols, records, care planning, photos, re-check rules) with no
// database library, and its SQLite backend (GRDB) beside it, as the PostgreSQL backend is.
let store: [Target] = [
    .target(
        name: "PlantStore",
        dependencies: ["PlantGuideCore", "CPlantKernels"],
        // The ASPCA facts the guide's toxicity values are checked against (a test reads them; the program does not).
        exclude: ["Resources/aspca-facts.tsv"],
        resources: [.copy("Resources/care-guide.tsv")],
        swiftSettings: settings
    ),
    // The collection in one SQLite file (GRDB): the default store, and the only module that links SQLite.
    .target(
        name: "PlantStoreSQLite",
        dependencies: [
            "PlantGuideCore",
            "PlantStore",
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "GRDBSQLite", package: "GRDB.swift"),
        ],
        swiftSettings: settings
    ),
    // A collection as one ZIP archive (export, import): the only part of the store that needs ZIPFoundation, so neither
    // backend links it.
    .target(
        name: "PlantArchive",
        dependencies: ["PlantGuideCore", "PlantStore", .product(name: "ZIPFoundation", package: "ZIPFoundation")],
        swiftSettings: settings
    ),
    .testTarget(
        name: "PlantStoreTests",
        dependencies: [
            "PlantStore", "PlantStoreSQLite", "PlantArchive", "PlantStorePostgres", "PlantCatalog", "PlantGuideTestSupport",
            .product(name: "GRDB", package: "GRDB.swift"),
        ],
        swiftSettings: settings
    ),
]

// MARK: - Store on PostgreSQL: the collection store's PostgreSQL backend (postgres-nio), a module of its own so the
// heavy dependency stays outside PlantStore; only the composition roots and the tests import it.
let storePostgres: [Target] = [
    .target(
        name: "PlantStorePostgres",
        dependencies: [
            "PlantStore",
            "PlantGuideCore",
            .product(name: "PostgresNIO", package: "postgres-nio"),
            .product(name: "Logging", package: "swift-log"),
        ],
        swiftSettings: settings
    ),
    .testTarget(
        name: "PlantStorePostgresTests",
        dependencies: [
            "PlantStorePostgres",
            "PlantStore",
            "PlantStoreSQLite",
            "PlantGuideTestSupport",
            .product(name: "PostgresNIO", package: "postgres-nio"),
            // The SQLite schema, migrated in memory, is the reference the PostgreSQL schema is compared with.
            .product(name: "GRDB", package: "GRDB.swift"),
        ],
        swiftSettings: settings
    ),
]

// MARK: - Composition: the live wiring both executables need (Pl@ntNet quota and cache in the store, password hashing),
// and form parsing, each a module of its own so the command line imports the web server only to serve.
let composition: [Target] = [
    .target(
        name: "PlantGuideLive",
        dependencies: [
            "PlantGuideCore", "PlantCatalog", "PlantImaging", "PlantClassifier", "PlantNetAPI", "PlantIdentification", "PlantStore",
            "PlantStoreSQLite", "PlantLocalization", .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "_CryptoExtras", package: "swift-crypto"),
        ] + httpClient,
        swiftSettings: settings
    ),
    .target(name: "PlantForms", dependencies: ["PlantGuideCore"], swiftSettings: settings),
    // Care reminders: each channel's daily digest, sent once (ntfy, webhook), for the server's scheduler and the CLI.
    .target(
        name: "PlantReminders",
        dependencies: ["PlantGuideCore", "PlantStore"] + httpClient + [
            .product(name: "NIOPosix", package: "swift-nio"), .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
        ],
        swiftSettings: settings
    ),
    .testTarget(
        name: "PlantRemindersTests",
        dependencies: ["PlantReminders", "PlantStore", "PlantStoreSQLite", "PlantStorePostgres", "PlantGuideTestSupport"],
        swiftSettings: settings
    ),
]

// MARK: - Command line and benchmarks: thin shells over the libraries.
let shells: [Target] = [
    .target(
        name: "PlantGuideCLI",
        dependencies: [
            "PlantGuideCore", "PlantCatalog", "PlantImaging", "PlantClassifier", "PlantNetAPI", "PlantIdentification",
            "PlantStore", "PlantStoreSQLite", "PlantArchive", "PlantStorePostgres", "PlantGuideLive", "PlantGuideServer", "PlantNetStub",
            "PlantReminders", "PlantLocalization", argumentParser,
        ],
        resources: [.copy("Resources/coreml")],
        swiftSettings: settings
    ),
    .executableTarget(name: "plantguide", dependencies: ["PlantGuideCLI"], swiftSettings: settings),
    .executableTarget(
        name: "plantguide-bench",
        dependencies: [
            "PlantGuideCore", "PlantCatalog", "PlantImaging", "PlantClassifier", "PlantNetAPI", "PlantIdentification",
            "PlantStore", "PlantStoreSQLite", "PlantStorePostgres", "PlantNetStub", "PlantForms", "PlantReminders", argumentParser,
        ],
        swiftSettings: settings
    ),
    // libFuzzer targets over every parser of untrusted input; see its main.swift for how to build and run them.
    .executableTarget(
        name: "plantguide-fuzz",
        dependencies: [
            "PlantGuideCore", "PlantCatalog", "PlantImaging", "PlantClassifier", "PlantStore", "PlantStoreSQLite", "PlantArchive",
            "PlantForms", .product(name: "GRDB", package: "GRDB.swift"),
        ],
        swiftSettings: settings
    ),
    // Fixtures and helpers for the test targets only; no product target depends on it.
    .target(
        name: "PlantGuideTestSupport",
        dependencies: ["PlantGuideCore", "PlantNetStub", "PlantStore", "PlantStoreSQLite", "PlantStorePostgres"] + nio,
        swiftSettings: settings
    ),
    .testTarget(
        name: "PlantGuideCLITests",
        dependencies: ["PlantGuideCLI", "PlantGuideLive", "PlantStoreSQLite", "PlantGuideTestSupport"],
        swiftSettings: settings
    ),
]

// MARK: - Classifier: the CNN engine over BLAS, PyTorch checkpoint import, model files, labels.
#if canImport(Accelerate)
let blas: [Target] = []
let blasDependency: [Target.Dependency] = []
#else
let blas: [Target] = [
    .systemLibrary(name: "COpenBLAS", pkgConfig: "openblas", providers: [.apt(["libopenblas-dev"])]),
]
let blasDependency: [Target.Dependency] = ["COpenBLAS"]
#endif
let classifier: [Target] = blas + [
    .systemLibrary(name: "CPlantZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]),
    .target(name: "CPlantKernels"),
    // oneDNN's convolutions on Linux (libdnnl-dev, OpenMP); elsewhere the target compiles to stubs.
    .target(
        name: "CPlantDNNL",
        dependencies: ["CPlantKernels"],
        linkerSettings: [.linkedLibrary("dnnl", .when(platforms: [.linux])), .linkedLibrary("gomp", .when(platforms: [.linux]))]
    ),
    .target(
        name: "PlantClassifier",
        dependencies: ["PlantGuideCore", "PlantImaging", "CPlantZlib", "CPlantKernels", "CPlantDNNL"] + blasDependency + httpClient
            + [.product(name: "NIOCore", package: "swift-nio"), .product(name: "Crypto", package: "swift-crypto")],
        exclude: ["Resources/SOURCES.md"],
        resources: [
            .copy("Resources/class_idx_to_species_id.json"),
            .copy("Resources/plantnet300K_species_id_2_name.json"),
        ],
        swiftSettings: settings
    ),
    .testTarget(
        name: "PlantClassifierTests",
        dependencies: ["PlantClassifier", "PlantGuideTestSupport"],
        resources: [.copy("Fixtures")],
        swiftSettings: settings
    ),
]

// MARK: - Web app: Hummingbird server, HTML pages, JSON API. Only `buildApplication` chooses live parts.
let hummingbird: Target.Dependency = .product(name: "Hummingbird", package: "hummingbird")
let web: [Target] = [
    .target(
        name: "PlantGuideServer",
        dependencies: [
            "PlantGuideCore",
            "PlantCatalog",
            "PlantImaging",
            "PlantStore",
            "PlantStoreSQLite",
            "PlantNetAPI",
            "PlantIdentification",
            "PlantClassifier",
            "PlantGuideLive",
            "PlantForms",
            "PlantLocalization",
            "PlantReminders",
            hummingbird,
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ] + httpClient,
        swiftSettings: settings
    ),
    .testTarget(
        name: "PlantGuideServerTests",
        dependencies: [
            "PlantGuideServer",
            "PlantGuideLive",
            "PlantLocalization",
            "PlantStoreSQLite",
            "PlantForms",
            "PlantClassifier",
            "PlantIdentification",
            "PlantGuideTestSupport",
            "PlantReminders",
            hummingbird,
            .product(name: "HummingbirdTesting", package: "hummingbird"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
        ],
        swiftSettings: settings
    ),
]

let package = Package(
    name: "PlantGuide",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .executable(name: "plantguide", targets: ["plantguide"]),
        .executable(name: "plantguide-bench", targets: ["plantguide-bench"]),
        .library(name: "PlantGuideCore", targets: ["PlantGuideCore"]),
        .library(name: "PlantCatalog", targets: ["PlantCatalog"]),
        .library(name: "PlantImaging", targets: ["PlantImaging"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.20"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/vapor/multipart-kit", from: "4.7.1"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    ],
    targets: core + catalog + imaging + classifier + outgoingHTTP + plantNet + store + storePostgres + composition + shells + web
        + localization
)
