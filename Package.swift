// swift-tools-version:6.0
import PackageDescription

/// Segue: a navigation coordinator daemon. See README.md and docs/.
///
/// Layering (docs/design.md, "Layering"): `SegueCore` is pure Swift, `SegueProtocol` is the wire protocol
/// without sockets; only `SegueStore` touches SQLite, only
/// `SegueWire` touches ZeroMQ, only `SegueDaemon` touches systemd. Executables are thin.
let package = Package(
    name: "Segue",
    products: [
        .executable(name: "segued", targets: ["segued"]),
        .executable(name: "segue", targets: ["segue"]),
        .executable(name: "segue-bench", targets: ["segue-bench"]),
        .library(name: "SegueCore", targets: ["SegueCore"]),
        .library(name: "SegueClient", targets: ["SegueClient"]),
    ],
    targets: [
        // No pkgConfig: libzmq's .pc adds -isystem flags (Kerberos, via its GSSAPI) that SwiftPM refuses
        // with a warning on every build; zmq.h is in /usr/include and the module map links zmq.
        .systemLibrary(name: "CZeroMQ", providers: [.apt(["libzmq3-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),
        // No pkgConfig, for the same reason: libmicrohttpd's .pc adds GnuTLS's Kerberos -isystem flags.
        .systemLibrary(name: "CMicroHTTPD", providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "CPostgres", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),

        // libm: the stdlib's Double rounding and exact conversions call into it; no import is involved.
        .target(name: "SegueCore", linkerSettings: [.linkedLibrary("m")]),
        .target(name: "SegueStore", dependencies: ["SegueCore", "CSQLite"]),
        // The wire protocol as types, both directions, with no socket code: requests, replies, topics,
        // publications, heartbeats. Shared by the daemon, the client library, the CLI and the fuzzers.
        .target(name: "SegueProtocol", dependencies: ["SegueCore"]),
        .target(name: "SegueWire", dependencies: ["CZeroMQ"]),
        .target(name: "SeguePostgres", dependencies: ["SegueCore", "SegueStore", "CPostgres"]),
        .target(
            name: "SegueDaemon",
            dependencies: [
                "SegueCore", "SegueProtocol", "SegueStore", "SeguePostgres", "SegueWire", "CSystemd",
                "SegueCommandLine",
            ]),
        .target(name: "SegueClient", dependencies: ["SegueCore", "SegueProtocol", "SegueWire"]),
        .target(name: "SegueHTTP", dependencies: ["CMicroHTTPD"]),
        // The viewer's page files (Sources/SegueView/Page) are embedded by the EmbedPage build plugin.
        .target(name: "SegueView", dependencies: ["SegueCore", "SegueHTTP"], plugins: ["EmbedPage"]),
        .executableTarget(name: "segue-page-embed"),
        .plugin(name: "EmbedPage", capability: .buildTool(), dependencies: ["segue-page-embed"]),
        // The command-line framework of segue, segued and segue-bench: tokenizer, typed options, help.
        .target(name: "SegueCommandLine"),

        .executableTarget(name: "segued", dependencies: ["SegueDaemon"]),
        .executableTarget(
            name: "segue",
            dependencies: [
                "SegueClient", "SegueStore", "SeguePostgres", "SegueCore", "SegueProtocol", "SegueWire",
                "SegueCommandLine", "SegueView",
                "SegueHTTP",
            ]),
        // A child process for SegueStoreTests' crash test: appends under load until SIGKILLed.
        .executableTarget(name: "segue-store-crasher", dependencies: ["SegueStore", "SegueCore", "SeguePostgres"]),
        .executableTarget(
            name: "segue-bench",
            dependencies: ["SegueCore", "SegueStore", "SegueProtocol", "SegueWire", "SegueCommandLine", "SeguePostgres"]),

        // The seeded generator the random-case tests share.
        .target(name: "SeededRandom", path: "Tests/SeededRandom"),
        .testTarget(name: "SegueCoreTests", dependencies: ["SegueCore", "SeededRandom"]),
        .testTarget(
            name: "SegueStoreTests",
            dependencies: ["SegueStore", "SegueCore", "segue-store-crasher", "SeguePostgres", "PostgresTestSupport"]),
        // Starts a real PostgreSQL server for the tests that need one (scripts/pg-test-server.sh).
        .target(name: "PostgresTestSupport", dependencies: ["SeguePostgres"], path: "Tests/PostgresTestSupport"),
        .testTarget(name: "SegueProtocolTests", dependencies: ["SegueProtocol", "SegueCore", "SeededRandom"]),
        .testTarget(name: "SegueWireTests", dependencies: ["SegueWire", "SegueProtocol", "SegueCore"]),
        .testTarget(
            name: "SegueDaemonTests", dependencies: ["SegueDaemon", "SegueProtocol", "SegueCore", "PostgresTestSupport"]),
        .testTarget(name: "SegueClientTests", dependencies: ["SegueClient", "SegueProtocol", "SegueCore", "SegueWire"]),
        // A plain TCP client speaking just enough HTTP to check the viewer's server byte for byte.
        .target(name: "HTTPTestSupport", path: "Tests/HTTPTestSupport"),
        .testTarget(name: "SegueHTTPTests", dependencies: ["SegueHTTP", "HTTPTestSupport"]),
        .testTarget(name: "SegueViewTests", dependencies: ["SegueView", "SegueHTTP", "SegueCore", "HTTPTestSupport"]),
        .testTarget(name: "SegueCommandLineTests", dependencies: ["SegueCommandLine"]),
        // The segue executable's own logic (value readers, key options, the watch layout, generated help).
        .testTarget(
            name: "SegueCLITests",
            dependencies: ["segue", "SegueClient", "SegueCore", "SegueProtocol", "SegueCommandLine"]),
        // Golden/: the wire transcript WireGoldenTests compares with, read from the source tree.
        .testTarget(
            name: "IntegrationTests",
            dependencies: [
                "SegueClient", "SegueCore", "SegueProtocol", "SegueWire", "PostgresTestSupport", "HTTPTestSupport",
            ],
            exclude: ["Golden"]),
    ]
)
