// swift-format-ignore-file
// Written by scripts/generate-openapi, do not modify.

/// The SHA-256 of docs/openapi.yaml and openapi-generator-config.yaml, in that order, when the files beside this one
/// were generated from them (swift-openapi-generator 1.14.3).
let generatedFromDocument = "c313d3736f8c1252e96f2a8d19c5aba052a8dc357a1087d14aa90b2e3ca9bbc4"
