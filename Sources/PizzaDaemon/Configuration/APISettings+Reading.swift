import Foundation
import PizzaAPI
import PizzaReplication

extension APISettings {
    /// `api.*`: where the order API listens (nil: only on a socket systemd passes), its TLS files (both or neither,
    /// and plain HTTP only on loopback) and its limits.
    init(reading values: ConfigurationValues) throws(ConfigurationError) {
        let listen = try values.setting(.apiListen) { ListenAddress(parsing: $0) }
        let certificate = try values.setting(.apiCertificate) {
            ReplicationConfiguration.isCertificateFile($0) ? $0 : nil
        }
        let key = try values.setting(.apiKey) { path in
            let text = FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) }
            return text?.contains("PRIVATE KEY-----") == true ? path : nil
        }
        if (certificate == nil) != (key == nil) {
            let missing = certificate == nil ? ConfigurationKey.apiCertificate : .apiKey
            let given = certificate == nil ? ConfigurationKey.apiKey : .apiCertificate
            throw ConfigurationError(
                source: values.source(given), key: missing.path, problem: "is missing; \(given.path) is set",
                allowed: "both api.tls.certificate and api.tls.key, or neither (plain HTTP on loopback only)")
        }
        if let listen, certificate == nil, !(listen.host.hasPrefix("127.") || listen.host == "::1") {
            throw ConfigurationError(
                source: values.source(.apiListen), key: ConfigurationKey.apiListen.path,
                problem: "'\(listen)' is beyond loopback, and plain HTTP would carry tokens and orders in clear",
                allowed: "a loopback address (127.0.0.1:8443), or set api.tls.certificate and api.tls.key")
        }
        self.init(
            host: listen?.host, port: listen?.port ?? 8443, certificatePath: certificate, keyPath: key,
            idempotencyHours: try values.integer(.apiIdempotencyHours),
            requestsPerSecond: try values.integer(.apiRequestsPerSecond),
            maxConnections: try values.integer(.apiMaxConnections),
            idleTimeoutSeconds: try values.integer(.apiIdleTimeoutSeconds),
            failedAuthenticationsAllowed: try values.integer(.apiLockoutAfterFailures),
            maxConnectionsPerAddress: try values.integer(.apiMaxConnectionsPerAddress),
            maxUnansweredPerAddress: try values.integer(.apiMaxUnansweredPerAddress))
    }
}
