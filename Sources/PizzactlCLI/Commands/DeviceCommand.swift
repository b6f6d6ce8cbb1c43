import ArgumentParser
import FoundationEssentials
import Glibc
import PizzaProtocol
import PizzaWire

struct DeviceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "device",
        abstract: "The order API's devices: tills, kitchen screens, readers and delivery platforms, each with a token.",
        subcommands: [Add.self, List.self, Revoke.self])

    struct Add: AsyncParsableCommand, PizzactlCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Add a device; print its token once (the daemon keeps only its hash) and the certificate's "
                + "fingerprint.",
            discussion: """
                The token is the last line of the output, alone, so that a script can take it with tail -n 1. Give it \
                to the device as its Authorization: Bearer header; it is not shown again (revoke and add the device \
                again to replace it). A platform that signs its pushes the Standard Webhooks way gets no token: \
                --signing-secret FILE names a file holding its whsec_ secret.

                Roles: till (menu, create, place, cancel, read), kitchen (advance, read, events), reader (read, \
                events), platform (create, cancel and read the orders it created).

                """ + GlobalOptions.help)
        @ParentCommand var pizzactl: Pizzactl

        @Argument(help: "The device's name: lowercase letters, digits, '-', '_' and '.' (till-1, kitchen, ubereats).")
        var name: String

        @Option(help: ArgumentHelp("What it may do.", valueName: "till|kitchen|reader|platform|manager"))
        var role: String

        @Option(
            name: .customLong("signing-secret"),
            help: ArgumentHelp(
                "A file holding the Standard Webhooks secret (whsec_…) the platform signs with.", valueName: "FILE"))
        var signingSecret: String?

        func run() async throws {
            var params: [(String, JSONValue)] = [("name", .string(name)), ("role", .string(role))]
            if let signingSecret {
                guard let data = FileManager.default.contents(atPath: signingSecret) else {
                    throw ValidationError("cannot read the signing secret from \(signingSecret)")
                }
                let secret = Output.trimmed(String(decoding: data, as: UTF8.self))
                params.append(("signingSecret", .string(secret)))
            }
            try await global.call(.deviceAdd, params, as: DeviceAddAnswer.self) { device in
                print("device \(device.name) added as a \(device.role.rawValue)")
                if let fingerprint = device.fingerprint {
                    print("the API's certificate (SHA-256 fingerprint, for the device to pin): \(fingerprint)")
                }
                if let token = device.token {
                    print("its token, shown once (Authorization: Bearer …):")
                    print(token)
                } else {
                    print("it signs its requests with the secret given; it has no token")
                }
            }
        }
    }

    struct List: AsyncParsableCommand, PizzactlCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the devices: name, role, when added, last seen and from where, revoked.",
            discussion: GlobalOptions.help)
        @ParentCommand var pizzactl: Pizzactl

        func run() async throws {
            try await global.call(.deviceList, as: DeviceListAnswer.self) { result in
                let devices = result.devices
                guard !devices.isEmpty else {
                    print("no devices (pizzactl device add NAME --role till)")
                    return
                }
                Output.table(
                    ["NAME", "ROLE", "CREATED", "LAST SEEN", "LAST ADDRESS", "REVOKED"],
                    devices.map { device in
                        [
                            device.name, device.role.rawValue + (device.signs ? " (signs)" : ""),
                            Output.time(device.createdAt), device.lastSeenAt.map { Output.time($0) } ?? "never",
                            device.lastAddress ?? "-", device.revokedAt.map { Output.time($0) } ?? "-",
                        ]
                    })
            }
        }
    }

    struct Revoke: AsyncParsableCommand, PizzactlCommand {
        static let configuration = CommandConfiguration(
            commandName: "revoke",
            abstract: "Revoke a device: its token is refused from its next request on, on open connections too.",
            discussion: GlobalOptions.help)
        @ParentCommand var pizzactl: Pizzactl

        @Argument(help: "The device's name.")
        var name: String

        func run() async throws {
            try await global.call(.deviceRevoke, [("name", .string(name))], as: DeviceAnswer.self) { device in
                print("device \(device.name) revoked at \(Output.time(device.revokedAt))")
            }
        }
    }
}
