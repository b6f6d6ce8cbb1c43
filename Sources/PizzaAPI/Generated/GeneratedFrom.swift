// swift-format-ignore-file
// Written by scripts/generate-openapi, do not modify.

/// The SHA-256 of docs/openapi.yaml and openapi-generator-config.yaml, in that order, when the files beside this one
/// were generated from them (swift-openapi-generator 1.14.3).
let generatedFromDocument = "4289ac710d5d116a2cc409c55fbce17f01bdbee6bfcdacc5e2058145739a5842"
