// swift-format-ignore-file
// Written by scripts/generate-openapi, do not modify.

/// The SHA-256 of docs/openapi.yaml and openapi-generator-config.yaml, in that order, when the files beside this one
/// were generated from them (swift-openapi-generator 1.14.3).
let generatedFromDocument = "d7010f39b66dfa599310e786d0541d105bcbd7cee8ab6d7b09b61201951c2f3a"
