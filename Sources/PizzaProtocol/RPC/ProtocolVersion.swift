/// The version of the control-socket protocol; a different major version is refused with `unsupported_version`.
public enum ProtocolVersion {
    /// The protocol version this build speaks.
    public static let current = "1.0"
    /// Its major number: a client of another major is refused (`unsupported_version`).
    public static let major = 1

    /// The major number of a version string, or nil when it is not `N` or `N.M`.
    public static func major(of version: String) -> Int? {
        Int(version.split(separator: ".", maxSplits: 1).first ?? "")
    }
}

/// The largest line either side may send.
public let maximumLineLength = 1 << 20
