// swift-format-ignore-file
// Written by scripts/generate-openapi, do not modify.

/// The SHA-256 of docs/openapi.yaml and openapi-generator-config.yaml, in that order, when the files beside this one
/// were generated from them (swift-openapi-generator 1.14.3).
let generatedFromDocument = "30fb7199ab14c66f06d68a03f93a024d6e05cbbeb19c3036fa647362e4df577e"
