// swift-tools-version: 6.2
// The fuzzer for pizzad's request decoder: libFuzzer over RPCRequest.parse, the JSON parser and the PIZZA shorthand.
// Run it with Tests/Fuzz/run.sh SECONDS (it passes -sanitize=fuzzer,address to every module it builds, so the decoder
// itself is instrumented for coverage).
import Foundation
import PackageDescription

// A path dependency is known by its folder's name, which is whatever the checkout is called.
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

let package = Package(
    name: "pizzafuzz",
    dependencies: [.package(path: root.path)],
    targets: [
        .target(name: "CFuzzer"),
        .executableTarget(
            name: "pizzafuzz",
            dependencies: ["CFuzzer", .product(name: "PizzaProtocolForFuzzing", package: root.lastPathComponent)],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
