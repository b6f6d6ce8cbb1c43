import DaemonHarness
import Foundation
import PizzaTesting
import Testing

/// What the booted-systemd test found an operator trips over, each also checked without systemd.
@Suite("Operator fixes: reload check, backup location", .offThePool)
struct OperatorFixesTests {
    @Test(
        "pizzad check-config (and the old --check-config): 0 and the file for a good configuration, 78 and the reason for a refused one, at priority err under the journal"
    )
    func checkConfiguration() throws {
        let directoryFolder = try TemporaryFolder("pizzad-check")
        defer { directoryFolder.remove() }
        let directory = directoryFolder.path
        let good = directory + "/good.yaml"
        try FileManager.default.copyItem(atPath: Binaries.repository + "/config/pizzad.yaml", toPath: good)
        let bad = directory + "/bad.yaml"
        try Data("log:\n  level: loud\n".utf8).write(to: URL(fileURLWithPath: bad))
        for command in ["check-config", "--check-config"] {
            let accepted = try run(Binaries.pizzad, [command, "--config", good])
            #expect(accepted.status == 0 && accepted.stdout.contains("configuration OK (\(good))"), "\(accepted)")
            let refused = try run(Binaries.pizzad, [command, "--config", bad])
            #expect(refused.status == 78, "\(refused)")
            #expect(refused.stderr.hasPrefix("pizzad: configuration refused"), "\(refused)")
            #expect(refused.stderr.contains("log.level"), "\(refused)")
        }
        // Under systemd (ExecReload=), the refusal carries syslog priority 3, so journalctl -p err shows it.
        let journal = PizzadEnvironment.scrubbed(overriding: ["JOURNAL_STREAM": "8:1234"])
        let refused = try run(Binaries.pizzad, ["check-config", "--config", bad], environment: journal)
        #expect(refused.stderr.hasPrefix("<3>pizzad: configuration refused"), "\(refused)")
    }

    @Test("under systemd (STATE_DIRECTORY set) a backup into /tmp is refused, naming the folder that keeps it")
    func backupOutsideStateDirectory() throws {
        let stateFolder = try TemporaryFolder("pizzad-state")
        defer { stateFolder.remove() }
        let state = stateFolder.path
        let daemon = try LiveDaemon(environment: ["STATE_DIRECTORY": state])
        let lost = "/tmp/pizzad-lost-\(UUID().uuidString.prefix(8)).sqlite"
        let refused = try daemon.pizzactl(["db", "backup", lost])
        #expect(refused.status == 1, "\(refused)")
        #expect((refused.stdout + refused.stderr).contains("back up below \(state)"), "\(refused)")
        #expect(!FileManager.default.fileExists(atPath: lost))
        let kept = try daemon.pizzactl(["db", "backup", state + "/kept.sqlite"])
        #expect(kept.status == 0, "\(kept)")
    }
}
