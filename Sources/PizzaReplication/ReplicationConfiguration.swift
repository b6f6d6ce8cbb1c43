import Foundation
import NIOSSL

/// Where and how this shop ships its changes (`replication.*` in pizzad.yaml); nil in the daemon's configuration
/// when `replication.postgres` is not set.
public struct ReplicationConfiguration: Sendable, Equatable {
    /// How the connection to PostgreSQL is protected.
    public enum TLSMode: String, Sendable, CaseIterable {
        /// Plain TCP (a loopback or an otherwise protected network only).
        case disable
        /// TLS when the server offers it (its certificate and name verified), else plain.
        case prefer
        /// TLS or no connection, the server's certificate and name verified against the system's trust store.
        case require
    }

    /// This shop's id at the centre: lowercase letters, digits, `-` and `_`, up to 63 characters.
    public var shopID: String
    public var host: String
    public var port: Int
    public var database: String
    /// The shop's own PostgreSQL role (a member of `pizzad_shop`).
    public var user: String
    /// A file holding the password; nil uses `$CREDENTIALS_DIRECTORY/pgpassword` when systemd passes one
    /// (`LoadCredential=pgpassword:…`), else no password.
    public var passwordFile: String?
    public var tls: TLSMode
    /// PEM certificates trusted for the server's certificate instead of the system's trust store (a private CA, or
    /// the server's own self-signed certificate); nil trusts the system's. With `prefer` and `require`.
    public var caFile: String?
    /// At most this many audit entries per central transaction.
    public var batchSize: Int
    /// How long connecting or one central request may take before the peer counts as partitioned or stalled.
    public var timeoutSeconds: Int
    /// How long the connection may sit with nothing to ship before a round trip checks it, so that a centre lost
    /// while the shop is quiet shows in `replication status` and `pizzad_replication_connected`. Each check is a
    /// transaction at the centre (at 1,000 quiet shops and 5 s, 200 a second), so a large chain may raise it.
    public var idleCheckSeconds: Int

    public init(
        shopID: String, host: String, port: Int = 5432, database: String, user: String, passwordFile: String? = nil,
        tls: TLSMode = .prefer, caFile: String? = nil, batchSize: Int = 500, timeoutSeconds: Int = 30,
        idleCheckSeconds: Int = 5
    ) {
        self.shopID = shopID
        self.host = host
        self.port = port
        self.database = database
        self.user = user
        self.passwordFile = passwordFile
        self.tls = tls
        self.caFile = caFile
        self.batchSize = batchSize
        self.timeoutSeconds = timeoutSeconds
        self.idleCheckSeconds = idleCheckSeconds
    }

    /// `user@host:port/database`, for status lines and logs (never the password).
    public var peer: String { "\(user)@\(host):\(port)/\(database)" }

    /// Whether `path` can serve as ``caFile``: readable, and holding at least one PEM certificate.
    public static func isCertificateFile(_ path: String) -> Bool {
        guard let certificates = try? NIOSSLCertificate.fromPEMFile(path) else { return false }
        return !certificates.isEmpty
    }

    /// Whether `id` may name a shop (the centre checks the same pattern).
    public static func isShopID(_ id: String) -> Bool {
        guard let first = id.utf8.first, id.utf8.count <= 63 else { return false }
        let allowed: (UInt8) -> Bool = { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) }
        return allowed(first)
            && id.utf8.allSatisfy { allowed($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") }
    }

    /// The password: read from the file each time a connection is made, so a rotated file needs no restart.
    func password(environment: [String: String]) throws(ReplicationError) -> String? {
        var file = passwordFile
        if file == nil, let credentials = environment["CREDENTIALS_DIRECTORY"] {
            let candidate = credentials + "/pgpassword"
            if FileManager.default.fileExists(atPath: candidate) { file = candidate }
        }
        guard let file else { return nil }
        guard let data = FileManager.default.contents(atPath: file), let text = String(data: data, encoding: .utf8)
        else {
            throw .passwordFile(path: file)
        }
        return text.trimmingCharacters(in: .newlines)
    }
}
