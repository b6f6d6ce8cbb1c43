// swift-tools-version: 6.2
// The fuzzers for pizzad's edges: pizzafuzz, libFuzzer over the control socket's request decoder (RPCRequest.parse,
// the JSON parser, the PIZZA shorthand), and pizzafuzz-http, over the order API's HTTP edges (NIO's HTTP/1.1
// decoder, then the route table, the headers and the changes' bodies as PizzaHTTPEdges reads them for PizzaAPI). Run them with
// Tests/Fuzz/run.sh SECONDS (each for SECONDS; it passes -sanitize=fuzzer,address to every module it builds, so
// pizzad's own code is instrumented for coverage).
import Foundation
import PackageDescription

// A path dependency is known by its folder's name, which is whatever the checkout is called.
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

let package = Package(
    name: "pizzafuzz",
    dependencies: [
        .package(path: root.path),
        // The versions pizzad's own Package.swift names.
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    ],
    targets: [
        .target(name: "CFuzzer"),
        .executableTarget(
            name: "pizzafuzz",
            dependencies: ["CFuzzer", .product(name: "PizzaProtocolForFuzzing", package: root.lastPathComponent)],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "pizzafuzz-http",
            dependencies: [
                "CFuzzer", .product(name: "PizzaHTTPEdgesForFuzzing", package: root.lastPathComponent),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
