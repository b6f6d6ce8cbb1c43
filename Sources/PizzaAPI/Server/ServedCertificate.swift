import Crypto
import Foundation
import NIOCore
import NIOSSL
import PizzaCore

/// The order API's certificate and key, re-read on `systemctl reload` (a renewal needs no restart): each new TLS
/// handshake is given the newest pair through NIOSSL's per-handshake callback; connections already open keep theirs.
/// A pair that cannot be read, or a key that does not match the certificate, is refused and the served one kept.
final class ServedCertificate: Sendable {
    private struct Pair {
        var chain: [NIOSSLCertificate]
        var key: NIOSSLPrivateKey
        /// 0 for the pair read at start (the configuration's own: the handshake needs no override).
        var generation: Int
    }

    let certificatePath: String
    let keyPath: String
    private let current: Locked<Pair>

    /// The pair at `certificatePath` and `keyPath`, read now.
    init(certificatePath: String, keyPath: String) throws(APIServer.StartError) {
        self.certificatePath = certificatePath
        self.keyPath = keyPath
        let (chain, key) = try Self.read(certificatePath, keyPath)
        current = Locked(Pair(chain: chain, key: key, generation: 0))
    }

    /// The certificate chain and key served now.
    var chain: [NIOSSLCertificate] { current.withLock { $0.chain } }
    var key: NIOSSLPrivateKey { current.withLock { $0.key } }

    /// Reads the files again; from the next handshake on, the new pair is served. Throws, serving the old pair,
    /// when they cannot be read or do not belong together.
    func reload() throws(APIServer.StartError) {
        let (chain, key) = try Self.read(certificatePath, keyPath)
        current.withLock { $0 = Pair(chain: chain, key: key, generation: $0.generation + 1) }
    }

    /// The per-handshake callback: no change until a reload, then the newest pair.
    var callback: NIOSSLContextCallback {
        { [current] _, promise in
            let pair = current.withLock { $0 }
            guard pair.generation > 0 else { return promise.succeed(.noChanges) }
            var override = NIOSSLContextConfigurationOverride()
            override.certificateChain = pair.chain.map { .certificate($0) }
            override.privateKey = .privateKey(pair.key)
            promise.succeed(override)
        }
    }

    private static func read(_ certificatePath: String, _ keyPath: String) throws(APIServer.StartError) -> (
        [NIOSSLCertificate], NIOSSLPrivateKey
    ) {
        let chain: [NIOSSLCertificate]
        let key: NIOSSLPrivateKey
        do {
            chain = try NIOSSLCertificate.fromPEMFile(certificatePath)
            key = try NIOSSLPrivateKey(file: keyPath, format: .pem)
        } catch {
            throw APIServer.StartError(
                description: "cannot read the order API's certificate \(certificatePath) or key \(keyPath): \(error)")
        }
        guard let leaf = chain.first else {
            throw APIServer.StartError(description: "\(certificatePath) holds no PEM certificate")
        }
        // A renewal that wrote the certificate but not yet its key: a handshake would fail for every client.
        guard Self.belongTogether(leaf, keyPath) else {
            throw APIServer.StartError(
                description: "the order API's key \(keyPath) does not belong to the certificate \(certificatePath)")
        }
        return (chain, key)
    }

    /// Whether the key at `keyPath` is the certificate's (compared by public key for the EC keys swift-crypto reads;
    /// another kind of key, RSA, is taken as it is: its handshake fails then, as before).
    private static func belongTogether(_ leaf: NIOSSLCertificate, _ keyPath: String) -> Bool {
        guard let served = try? leaf.extractPublicKey().toSPKIBytes(),
            let pem = try? String(contentsOfFile: keyPath, encoding: .utf8)
        else { return true }
        let candidates: [Data?] = [
            (try? P256.Signing.PrivateKey(pemRepresentation: pem))?.publicKey.derRepresentation,
            (try? P384.Signing.PrivateKey(pemRepresentation: pem))?.publicKey.derRepresentation,
            (try? P521.Signing.PrivateKey(pemRepresentation: pem))?.publicKey.derRepresentation,
        ]
        let known = candidates.compactMap { $0 }
        return known.isEmpty || known.contains { Array($0) == served }
    }
}
