import PizzaTesting

/// A self-signed certificate for 127.0.0.1 and ::1, and its key, in `folder`.
public func selfSignedCertificate(in folder: String) throws -> (certificate: String, key: String) {
    let certificate = folder + "/api.pem"
    let key = folder + "/api.key"
    let made = try run(
        "openssl",
        [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2",
            "-subj", "/CN=pizzad", "-addext", "subjectAltName=IP:127.0.0.1,IP:::1", "-keyout", key, "-out",
            certificate,
        ])
    guard made.status == 0 else { throw HarnessError("openssl req: \(made)") }
    return (certificate, key)
}
