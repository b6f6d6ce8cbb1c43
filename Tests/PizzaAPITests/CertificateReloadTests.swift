import Foundation
import PizzaAPI
import PizzaTesting
import Testing

/// The order API's certificate is read again on `systemctl reload` (issue 79, item 10): a renewal needs no restart.
@Suite("Order API: a renewed certificate without a restart")
struct CertificateReloadTests {
    /// A new self-signed P-256 certificate and key written to `certificate` and `key`.
    static func makeCertificate(_ certificate: String, _ key: String, name: String) throws {
        let made = try ChildProcess.run(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2",
                "-subj", "/CN=\(name)", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", certificate,
            ])
        guard made.status == 0 else { throw RawHTTP.Failed(description: "openssl req: \(made.output)") }
    }

    /// The subject of the certificate a new TLS connection to `port` is given.
    static func servedSubject(port: Int) async throws -> String {
        try await RawHTTP.onThread {
            let answer = try ChildProcess.run(
                "/bin/sh",
                [
                    "-c",
                    "openssl s_client -connect 127.0.0.1:\(port) </dev/null 2>/dev/null | openssl x509 -noout -subject",
                ])
            return answer.output
        }
    }

    @Test(
        "reloaded: new connections get the new pair; a half-written renewal is refused and the old pair kept",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl"), "openssl is missing"))
    func reload() async throws {
        let folder = try TemporaryFolder("pizzad-cert")
        let (certificate, key) = (folder.path + "/api.pem", folder.path + "/api.key")
        try Self.makeCertificate(certificate, key, name: "first")
        let fixture = try await APIFixture(
            settings: APISettings(host: "127.0.0.1", port: 0, certificatePath: certificate, keyPath: key))
        try await fixture.live { port in
            #expect(try await Self.servedSubject(port: port).hasSuffix("CN = first"))
            // Renewed: the files replaced, then the reload.
            try Self.makeCertificate(certificate, key, name: "second")
            #expect(
                try await Self.servedSubject(port: port).hasSuffix("CN = first"), "nothing changes before the reload")
            try fixture.api.reloadCertificate()
            #expect(try await Self.servedSubject(port: port).hasSuffix("CN = second"))
            // A renewal caught half-way: a new certificate whose key is not written yet.
            let other = folder.path + "/other"
            try Self.makeCertificate(other + ".pem", other + ".key", name: "third")
            try FileManager.default.removeItem(atPath: certificate)
            try FileManager.default.copyItem(atPath: other + ".pem", toPath: certificate)
            #expect(throws: (any Error).self) { try fixture.api.reloadCertificate() }
            #expect(try await Self.servedSubject(port: port).hasSuffix("CN = second"), "the served pair kept")
            // Garbage in the files: refused the same way.
            try Data("not a certificate".utf8).write(to: URL(fileURLWithPath: certificate))
            #expect(throws: (any Error).self) { try fixture.api.reloadCertificate() }
            #expect(try await Self.servedSubject(port: port).hasSuffix("CN = second"))
        }
    }
}
