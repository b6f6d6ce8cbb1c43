import Foundation

/// The environment a test's pizzad starts with: this process's, without anything that would steer pizzad from
/// outside the test (its own `PIZZAD_*` settings, systemd's socket-activation and notify variables), plus the
/// test's own `overrides`.
public enum PizzadEnvironment {
    public static func scrubbed(overriding overrides: [String: String] = [:]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        for key in environment.keys
        where key.hasPrefix("PIZZAD_") || key.hasPrefix("LISTEN_") || key == "NOTIFY_SOCKET" {
            environment.removeValue(forKey: key)
        }
        environment.merge(overrides) { $1 }
        return environment
    }
}
