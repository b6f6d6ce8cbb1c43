// swift-format-ignore-file
// Written by scripts/generate-openapi, do not modify.

/// The SHA-256 of docs/openapi.yaml and openapi-generator-config.yaml, in that order, when the files beside this one
/// were generated from them (swift-openapi-generator 1.14.3).
let generatedFromDocument = "5be33780a987cf8c5866bc128a7126777072560fb163b3b3a5742826a45a94b5"
