import PizzaAPI
import PizzaCore
import PizzaProtocol
import PizzaStorage
import PizzaWire

extension RPCDispatcher {
    /// `device.*`: the order API's devices (CONTRACT section 15). A token is made here and shown once; the database
    /// keeps only its hash.
    static func addDeviceMethods(to table: inout MethodTable, _ state: DaemonState) {
        let store = state.store
        table.add(.deviceAdd, .operator) { params, _ in
            try params.onlyKnown(["name", "role", "signingSecret"])
            let name = try params.requiredString("name")
            guard Device.isName(name) else {
                throw RPCError.validation(
                    "name", "'\(name)' cannot name a device",
                    allowed: ["1 to 64 of lowercase letters, digits, '-', '_' and '.', starting with a letter or digit"]
                )
            }
            let roleName = try params.requiredString("role")
            let roles = DeviceRole.allCases.map(\.rawValue)
            guard let role = DeviceRole(rawValue: roleName) else {
                throw RPCError.validation("role", "'\(roleName)' is not a role", allowed: roles)
            }
            let secret = try params.string("signingSecret")
            if let secret, !DeviceTokens.isSigningSecret(secret) {
                throw RPCError.validation(
                    "signingSecret", "a signing secret is whsec_ and the base64 of 24 to 64 random bytes",
                    allowed: ["whsec_…"])
            }
            let token = secret == nil ? DeviceTokens.make() : nil
            try await store.addDevice(
                name: name, role: role, tokenSHA256: token.map(DeviceTokens.sha256(of:)), signingSecret: secret)
            try state.api.value?.reloadDevices()
            state.logger.notice("order API device added", metadata: ["device": "\(name)", "role": "\(role.rawValue)"])
            let fingerprint = state.apiSettings.certificatePath.flatMap(DeviceTokens.fingerprint(ofCertificateFile:))
            return try DeviceAddAnswer(name: name, role: role, token: token, fingerprint: fingerprint).json
        }
        table.add(.deviceList, .reader) { params, _ in
            try params.onlyKnown([])
            return try DeviceListAnswer(devices: try store.devices().map(\.answer)).json
        }
        table.add(.deviceRevoke, .operator) { params, _ in
            try params.onlyKnown(["name"])
            let name = try params.requiredString("name")
            try await store.revokeDevice(name: name)
            try state.api.value?.reloadDevices()
            state.logger.notice("order API device revoked", metadata: ["device": "\(name)"])
            guard let device = try store.devices().first(where: { $0.name == name }) else {
                throw DeviceError.notFound(name)
            }
            return try device.answer.json
        }
    }
}

extension Device {
    /// `{name, role, signs, createdAt, revokedAt, lastSeenAt, lastAddress}`.
    var answer: DeviceAnswer {
        DeviceAnswer(
            name: name, role: role, signs: signs, createdAt: createdAt.description,
            revokedAt: revokedAt?.description, lastSeenAt: lastSeenAt?.description, lastAddress: lastAddress)
    }
}
