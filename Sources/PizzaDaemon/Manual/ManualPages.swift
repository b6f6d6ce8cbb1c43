import PizzaProtocol
import PizzaWire

/// `pizzad(8)` and `pizzad.yaml(5)`, written from the code they describe: the command line from ``PizzadCommand``'s
/// own declarations (argument-parser's tool info, as its generate-manual reads it), the exit codes from
/// `Daemon.ExitCode`, every key from ``ConfigurationSchema/keys``.
/// `Tools/pizzad-manual` writes them at package build time (debian/rules), so the pages cannot drift.
public enum ManualPages {
    /// Every page: file name and mdoc source.
    public static func all(date: String) -> [(file: String, source: String)] {
        [("pizzad.8", daemon(date: date)), ("pizzad.yaml.5", configuration(date: date))]
    }

    /// `pizzad(8)`.
    public static func daemon(date: String) -> String {
        var page = ManualText.page(name: "pizzad", section: 8, date: date, description: "pizza shop order daemon")
        let root = PizzadCommand.toolInfo
        let subcommands = (root.subcommands ?? []).filter { $0.shouldDisplay && $0.commandName != "help" }
        page.section("SYNOPSIS")
        for command in [root] + subcommands {
            page.request("Nm")
            page.text(synopsis(of: command, root: root))
            page.request("br")
        }
        page.request("Nm")
        page.text("--version")
        page.section("DESCRIPTION")
        page.text(DaemonText.description)
        page.section("OPTIONS")
        page.list(options(of: root))
        for command in subcommands {
            page.section(command.commandName.uppercased())
            var text = "pizzad \(command.commandName): \(command.abstract ?? "")"
            if command.commandName == "restore" { text += " " + DaemonText.restore }
            page.text(text)
            let options = options(of: command)
            if !options.isEmpty { page.list(options) }
        }
        page.section("ENVIRONMENT")
        page.list(DaemonText.environment.map { ("Ev " + $0.name, $0.text) })
        page.section("FILES")
        page.list(DaemonText.files.map { ("Pa " + $0.path, $0.text) })
        page.section("SIGNALS")
        let live = ConfigurationSchema.keys.filter { $0.applied == .onReload }.map(\.path)
        page.list([
            ("Dv SIGTERM , SIGINT", DaemonText.stopping),
            (
                "Dv SIGHUP",
                "Re-reads the configuration (systemctl reload pizzad). Applied at once: \(live.joined(separator: ", ")). "
                    + "Every other key needs a restart; the log says which changed. A refused file keeps the running "
                    + "configuration."
            ),
        ])
        page.section("EXIT STATUS")
        page.list([
            ("\(Daemon.ExitCode.ok)", "stopped cleanly, or the requested check or action succeeded"),
            ("\(Daemon.ExitCode.failure)", "failed while running (the log says why); systemd restarts it"),
            ("\(Daemon.ExitCode.usage)", "bad command line (EX_USAGE)"),
            (
                "\(Daemon.ExitCode.badDatabase)",
                "a database pizzad must not touch (EX_DATAERR): written by a newer pizzad, a changed migration, "
                    + "not a pizzad database"
            ),
            (
                "\(Daemon.ExitCode.unavailable)",
                "restore: the centre cannot be reached or refused the login (EX_UNAVAILABLE)"
            ),
            (
                "\(Daemon.ExitCode.cannotCreate)",
                "restore: a database is in place and --force was not given (EX_CANTCREAT)"
            ),
            ("\(Daemon.ExitCode.temporaryFailure)", "restore: another process has the database open (EX_TEMPFAIL)"),
            ("\(Daemon.ExitCode.badConfiguration)", "a refused configuration (EX_CONFIG): the message names the key"),
        ])
        page.text(
            "restore also exits \(Daemon.ExitCode.badDatabase) when what it would restore from is not sound: not a pizzad "
                + "database, damaged or truncated, a newer schema, a broken audit chain, a centre with a gap or a wrong "
                + "hash, a shop id of another role.")
        let final = [Daemon.ExitCode.usage, Daemon.ExitCode.badDatabase, Daemon.ExitCode.badConfiguration]
        page.text(
            "systemd does not restart pizzad after \(final.map(String.init).joined(separator: ", ")) "
                + "(RestartPreventExitStatus=): a restart cannot fix them.")
        page.section("SYSTEMD")
        page.text(DaemonText.systemd)
        page.section("SEE ALSO")
        page.text("pizzactl(1), pizzad.yaml(5), systemd.service(5), systemd.socket(5), sqlite3(1)")
        page.text("The operator's guide: /usr/share/doc/pizzad/OPERATIONS.md")
        return page.source
    }

    /// A command's displayed options as the manual lists them: `Fl -config Ar PATH` and its help.
    static func options(of command: CommandDescription) -> [(tag: String, text: String)] {
        command.longOptions.map { ("Fl -" + $0.name + ($0.value.map { " Ar " + $0 } ?? ""), $0.help) }
    }

    /// `[--config PATH] [--database PATH] …` for the root, `restore [--from-backup FILE] …` for a subcommand.
    static func synopsis(of command: CommandDescription, root: CommandDescription) -> String {
        let words = command.longOptions.map { "[--" + $0.name + ($0.value.map { " " + $0 } ?? "") + "]" }
        let prefix = command.commandName == root.commandName ? [] : [command.commandName]
        return (prefix + words).joined(separator: " ")
    }

    /// `pizzad.yaml(5)`.
    public static func configuration(date: String) -> String {
        var page = ManualText.page(
            name: "pizzad.yaml", section: 5, date: date, description: "pizzad configuration file")
        page.section("SYNOPSIS")
        page.text("/etc/pizzad/pizzad.yaml")
        page.section("DESCRIPTION")
        page.text(ConfigurationText.description)
        var sections: [String] = []
        for key in ConfigurationSchema.keys {
            let section = String(key.path.prefix { $0 != "." })
            if !sections.contains(section) { sections.append(section) }
        }
        page.section("KEYS")
        for section in sections {
            page.request("Ss \(section)")
            page.list(
                ConfigurationSchema.keys.filter { $0.path.hasPrefix(section + ".") || $0.path == section }.map { key in
                    var lines = [
                        key.summary,
                        "Type: \(key.typeDescription). Default: \(key.defaultDescription).",
                        "Allowed: \(key.allowedDescription).",
                        key.applied == .onReload
                            ? "Reload: applied at once by systemctl reload pizzad (SIGHUP)."
                            : "Reload: needs a restart.",
                    ]
                    lines.append("Also: \(key.alsoFrom.joined(separator: ", ")).")
                    return ("Cm " + key.path, lines.joined(separator: "\n"))
                })
        }
        page.section("EXAMPLES")
        page.request("Bd -literal -offset indent")
        page.text(ConfigurationText.example)
        page.request("Ed")
        page.section("FILES")
        page.list([
            ("Pa /etc/pizzad/pizzad.yaml", "installed by the package, every key in it commented"),
            ("Pa config/pizzad.yaml", "in a source tree, read by swift run pizzad"),
        ])
        page.section("SEE ALSO")
        page.text("pizzad(8), pizzactl(1)")
        return page.source
    }
}
