// swift-tools-version: 6.2
import PackageDescription

let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .unsafeFlags(["-cross-module-optimization"], .when(configuration: .release)),
]

/// pizzad's release build links Swift's runtime and Foundation in, as the Debian package's build does (debian/rules:
/// `--static-swift-stdlib`), so that `swift build -c release`, and pizzabench with it, measures what ships: a retain or
/// a release is then a direct call, not one through the PLT, and the runtime's thread-locals need no `__tls_get_addr`
/// (docs/PERFORMANCE.md, "The release build links the runtime in"). The modules are compiled against the shared
/// Foundation, whose imports name only its own library, so the archives that one needs in turn are named here, as a
/// group (the linker goes round it until nothing more is missing). A debug build stays dynamic: it links faster.
let staticRuntime: [LinkerSetting] = [
    .unsafeFlags(
        ["-static-stdlib", "-Xlinker", "--start-group"]
            + [
                "Foundation", "FoundationEssentials", "FoundationInternationalization",
                "_FoundationICU", "_FoundationCollections", "_FoundationCShims", "CoreFoundation",
            ].flatMap { ["-Xlinker", "-l\($0)"] } + ["-Xlinker", "--end-group"],
        .when(configuration: .release))
]

let package = Package(
    name: "pizzad",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "pizzad", targets: ["pizzad"]),
        .executable(name: "pizzactl", targets: ["pizzactl"]),
        .library(name: "PizzaCore", targets: ["PizzaCore"]),
        // For Tests/Fuzz/: the request decoder and what it needs, as one product the fuzzing package depends on.
        .library(name: "PizzaProtocolForFuzzing", targets: ["PizzaProtocol", "PizzaWire", "PizzaCore"]),
        // For Tests/Fuzz/: the order API's HTTP edges (HTTPEdges, an SPI), for the second fuzzing target.
        .library(name: "PizzaHTTPEdgesForFuzzing", targets: ["PizzaHTTPEdges"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0", traits: ["YAML"]),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        // Yams is already in the graph through swift-configuration's YAML trait; we use it directly only to
        // walk the configuration file's keys, which swift-configuration cannot enumerate (unknown-key errors).
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        // Latency percentiles in the benchmark (p50/p99/p999), as issue 5 asks: HdrHistogram's recording is
        // constant-time and its quantiles are exact to three significant digits.
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
        // Shipping every change to a central PostgreSQL (CONTRACT section 11): the wire protocol, SCRAM and TLS.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // TLS to the central PostgreSQL (replication.postgres.tls) and the order API; already in the graph through
        // postgres-nio.
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        // The order API (CONTRACT section 15): HTTP/1.1 and HTTP/2 over TLS, its router and middleware. Without its
        // default traits: pizzad reads its configuration itself and needs none of Foundation's extras from it.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        // Bearer tokens and the identity a request carries (AuthRequestContext).
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
        // HTTP's field names and statuses as Hummingbird speaks them; already in the graph through it.
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        // HTTP parts typed as swift-http-types (NIOHTTPTypes), for the API's request deadline; already in the graph.
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        // The order API's HTTP/2 connections, set up by pizzad (APIChannel), not HummingbirdHTTP2: its streams'
        // changes are answered from the connection's frames, without a channel each; already in the graph.
        .package(url: "https://github.com/apple/swift-nio-http2", from: "1.46.0"),
        // Webhooks (CONTRACT section 16): outgoing HTTPS with connection pooling, deadlines and TLS checks, on the
        // same NIO as the rest; writing an HTTP/1.1 and HTTP/2 client of our own would be all of that again.
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        // The order API's document as the source of its routes' types (Sources/PizzaAPI/Generated, generated once by
        // scripts/generate-openapi and committed): the runtime the generated code calls, and its Hummingbird
        // transport. Without default traits, as Hummingbird's.
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4", traits: []),
        .package(url: "https://github.com/hummingbird-project/swift-openapi-hummingbird", from: "2.1.0"),
    ],
    targets: [
        // libsqlite3 from the system (Debian: libsqlite3-dev).
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // A thin, typed wrapper over libsqlite3: connections, statements, errors.
        .target(name: "SQLite", dependencies: ["CSQLite", "CSQLiteWAL", "Locking"], swiftSettings: strict),
        // A VFS shim that writes a transaction's WAL frames with one write instead of two per frame.
        .target(name: "CSQLiteWAL"),
        // renameat2(RENAME_NOREPLACE), which Glibc hides from Swift behind _GNU_SOURCE.
        .target(name: "CSystemShims"),
        // `Locked`, a value behind a pthread mutex (which ThreadSanitizer sees, where it does not see
        // Synchronization.Mutex's futex on Linux): for the SQLite layer and, re-exported, the domain and above.
        .target(name: "Locking", swiftSettings: strict),
        // The domain: pizzas, menu, factory, builder, cart, repository, multicast delegate. No SQLite, no NIO.
        .target(name: "PizzaCore", dependencies: ["Locking"], swiftSettings: strict),
        // SQLite storage: migrations, the order store, the persistence layer and the audit logger.
        .target(
            name: "PizzaStorage",
            dependencies: [
                "PizzaCore", "PizzaWire", "SQLite", "CSystemShims",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        // The metrics collector: a repository subscriber feeding swift-metrics / Prometheus.
        .target(
            name: "PizzaMetrics",
            dependencies: [
                "PizzaCore",
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            swiftSettings: strict
        ),
        // An order's wire form and the JSON it is written in: what `order.get` answers, the audit log keeps and the
        // centre receives. Storage and protocol both use it; it needs only the domain.
        .target(name: "PizzaWire", dependencies: ["PizzaCore"], swiftSettings: strict),
        // The wire protocol shared by pizzad and pizzactl: JSON-RPC envelopes, error codes, line framing.
        .target(
            name: "PizzaProtocol",
            dependencies: ["PizzaCore", "PizzaWire", .product(name: "NIOCore", package: "swift-nio")],
            swiftSettings: strict,
            plugins: ["VersionPlugin"]
        ),
        // The version, written once in debian/changelog, compiled into PizzaProtocol's PizzadVersion.
        .executableTarget(name: "pizzad-version", path: "Tools/pizzad-version", swiftSettings: strict),
        .plugin(name: "VersionPlugin", capability: .buildTool(), dependencies: ["pizzad-version"]),
        // Writes pizzad(8) and pizzad.yaml(5) from the daemon's options and configuration schema (debian/rules).
        .executableTarget(
            name: "pizzad-manual", dependencies: ["PizzaDaemon"], path: "Tools/pizzad-manual", swiftSettings: strict),
        // A NIO client for the control socket (pizzactl, tests, benchmarks).
        .target(
            name: "PizzaClient",
            dependencies: [
                "PizzaProtocol", "PizzaWire",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        // The shipper: every audit entry, in order, to a central PostgreSQL; its central schema and ingest checks.
        .target(
            name: "PizzaReplication",
            dependencies: [
                "PizzaCore", "PizzaStorage", "PizzaWire",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ],
            swiftSettings: strict
        ),
        // What the order API reads from a request before a handler runs: the route table, the headers, the bodies,
        // the query, and the problems it answers with. Apart from PizzaAPI so that the HTTP edges' fuzzer (Tests/Fuzz)
        // builds these with what they need, not Hummingbird, HTTP/2, TLS and storage, which PizzaAPI brings.
        .target(
            name: "PizzaHTTPEdges",
            dependencies: [
                "PizzaCore", "PizzaWire", "PizzaProtocol", .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: strict
        ),
        // The order API over HTTPS (CONTRACT section 15): devices and their tokens, idempotency keys, limits, the
        // routes; Hummingbird stays inside it, and the daemon only wires it in.
        .target(
            name: "PizzaAPI",
            dependencies: [
                "PizzaCore", "PizzaStorage", "PizzaWire", "PizzaProtocol", "PizzaHTTPEdges",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIHummingbird", package: "swift-openapi-hummingbird"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP2", package: "swift-nio-extras"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["Generated/openapi-generator-config.yaml"],
            swiftSettings: strict
        ),
        // What leaves the shop (CONTRACT section 16): kitchen tickets on ESC/POS printers and signed webhooks, each a
        // cursor over the audit log.
        .target(
            name: "PizzaOutbox",
            dependencies: [
                "PizzaCore", "PizzaStorage", "PizzaWire", "PizzaProtocol",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ],
            swiftSettings: strict
        ),
        // The daemon: configuration, services, control socket server, access, systemd integration.
        .target(
            name: "PizzaDaemon",
            dependencies: [
                "PizzaCore", "PizzaStorage", "PizzaMetrics", "PizzaProtocol", "PizzaWire", "PizzaReplication", "SQLite",
                "CSystemShims", "PizzaAPI", "PizzaHTTPEdges", "PizzaOutbox",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "Yams", package: "Yams"),
                // pizzad's command line, and pizzad(8) written from the same declarations (their dumped help).
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict
        ),
        // pizzad, and pizzactl when started under that name: the package installs pizzactl as a link to pizzad.
        .executableTarget(
            name: "pizzad",
            dependencies: [
                "PizzaDaemon", "PizzactlCLI", .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            exclude: ["exports.map"],
            swiftSettings: strict,
            linkerSettings: staticRuntime + [
                .unsafeFlags(
                    ["-Xlinker", "--version-script=\(Context.packageDirectory)/Sources/pizzad/exports.map"],
                    .when(configuration: .release))
            ]
        ),
        // pizzactl's commands, for the pizzactl program and for pizzad started as pizzactl.
        .target(
            name: "PizzactlCLI",
            dependencies: [
                "PizzaClient", "PizzaProtocol", "PizzaWire", "PizzaCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(name: "pizzactl", dependencies: ["PizzactlCLI"], swiftSettings: strict),
        // The benchmark: pizzad against the SQLite limit on the same machine (swift run -c release pizzabench).
        // A test helper: holds many connections to pizzad in a process of its own (HeldConnections in the tests).
        .executableTarget(
            name: "hold-connections", dependencies: ["CSystemShims"], path: "Tests/HoldConnections",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "pizzabench",
            dependencies: [
                "PizzaClient", "PizzaProtocol", "PizzaWire", "PizzaCore", "PizzaStorage", "SQLite", "PizzaTesting",
                "CSystemShims",
                // The chain step runs pizzad's own shipper for each of its shops, in process.
                "PizzaReplication",
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                // The order API step's HTTP/2 client.
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                // The outbox step's webhook endpoint.
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            // socketwork.c and the baselines (Baselines/: samework.c, sqlite-limit.c, pg-samework.sql) are built and run by
            // pizzabench itself.
            exclude: ["SocketWork", "Baselines"],
            swiftSettings: strict,
            // Linked as pizzad is, so that `pizzabench instructions` can run SwiftNIO's floor under Valgrind too.
            linkerSettings: staticRuntime
        ),
        // The full crash and power-cut rounds against the release pizzad (swift run -c release pizzatorture crash).
        .executableTarget(
            name: "pizzatorture",
            dependencies: [
                "PizzaClient", "PizzaProtocol", "PizzaWire", "PizzaCore", "SQLite", "PizzaTesting",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict
        ),
        // What tests and the full crash runs share: a raw socket connection, hostile request lines, the power-cut file
        // system's driver and the power-cut rounds.
        .target(
            name: "PizzaTesting",
            dependencies: [
                "PizzaClient", "PizzaProtocol", "PizzaWire", "SQLite", "Locking", "CSystemShims",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strict),
        .testTarget(name: "PizzaCoreTests", dependencies: ["PizzaCore"], swiftSettings: strict),
        .testTarget(name: "PizzaWireTests", dependencies: ["PizzaWire", "PizzaCore"], swiftSettings: strict),
        .testTarget(
            name: "PizzaMetricsTests", dependencies: ["PizzaMetrics", "PizzaCore", "PizzaTesting"],
            swiftSettings: strict),
        .testTarget(
            name: "PizzaClientTests",
            dependencies: [
                "PizzaClient", "PizzaProtocol", "PizzaTesting", "CSystemShims",
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strict),
        .testTarget(name: "SQLiteTests", dependencies: ["SQLite", "PizzaTesting"], swiftSettings: strict),
        // The order API in process: its router over a real SQLite store, without a socket (HummingbirdTesting).
        .testTarget(
            name: "PizzaAPITests",
            dependencies: [
                "PizzaAPI", "PizzaStorage", "PizzaCore", "PizzaWire", "PizzaTesting", "SQLite", "PizzaProtocol",
                "PizzaHTTPEdges",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "PizzaOutboxTests",
            dependencies: [
                "PizzaOutbox", "PizzaCore", "PizzaStorage", "PizzaTesting",
                .product(name: "Logging", package: "swift-log"),
            ], swiftSettings: strict),
        .testTarget(
            name: "PizzaDaemonUnitTests",
            dependencies: [
                "PizzaDaemon", "PizzaReplication", "PizzaStorage", "PizzaProtocol", "PizzaWire", "PizzaCore", "SQLite",
                "PizzaTesting", "Locking", "PizzaMetrics", "PizzaOutbox", "DaemonHarness", "PizzaClient",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"), .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "PizzaProtocolTests",
            dependencies: [
                "PizzaProtocol", "PizzaWire", "PizzaCore", .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "PizzaStorageTests",
            dependencies: [
                "PizzaStorage", "PizzaCore", "PizzaProtocol", "PizzaWire", "PizzaMetrics", "SQLite", "PizzaTesting",
            ],
            swiftSettings: strict
        ),
        // The shipper's retries, backoff and divergence, in process against a centre of the tests' own.
        .testTarget(
            name: "PizzaReplicationTests",
            dependencies: [
                "PizzaReplication", "PizzaStorage", "PizzaCore", "PizzaWire", "PizzaTesting",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ],
            swiftSettings: strict
        ),
        // What the daemon's tests share, in a process or in the test's: pizzactl as a user types it, HTTP on raw
        // sockets, the real PostgreSQL, Prometheus, webhook receivers and systemd they start.
        .target(
            name: "DaemonHarness",
            dependencies: ["PizzaProtocol", "PizzaWire", "PizzaClient", "PizzaCore", "PizzaTesting"],
            path: "Tests/DaemonHarness", swiftSettings: strict
        ),
        .testTarget(
            name: "PizzaDaemonTests",
            dependencies: ["PizzaProtocol", "PizzaWire", "PizzaClient", "PizzaCore", "PizzaTesting", "DaemonHarness"],
            // The browser's side of the board page test, run with Debian's python3; the lossy network's proxy and till.
            exclude: [
                "Browser", "LossyNetwork", "Outbox/webhook_receiver.py", "Outbox/receivers.pl", "Hostile/h2flood.py",
                "Hostile/h2changes.py",
            ],
            swiftSettings: strict
        ),
    ]
)
