/// The prose of `pizzad(8)` that no table in the code holds.
enum DaemonText {
    static let description = """
        pizzad tracks a pizza shop's orders in SQLite. Pizzas come from the menu, go into carts, and a cart carries its \
        order from open through placed, preparing, baking, boxed and shipped to delivered, or cancelled. Every change \
        is written to the database, appended to a hash-chained audit log naming who made it, and counted for \
        Prometheus, in one transaction that is on disk before the change is acknowledged.
        Operators drive it with pizzactl(1) over a Unix control socket (JSON-RPC, one request a line). Settings come \
        from command-line flags, then PIZZAD_* environment variables, then the configuration file (pizzad.yaml(5)), \
        then built-in defaults. With none given, pizzad uses the development paths below the working directory \
        (.pizzad/), so that swift run pizzad works in a fresh clone.
        """

    static let environment: [(name: String, text: String)] = [
        ("PIZZAD_CONFIG", "the configuration file, below --config"),
        ("PIZZAD_DATABASE", "the database file, below --database"),
        ("PIZZAD_SOCKET", "the control socket, below --socket"),
        ("PIZZAD_MIGRATIONS", "the folder of migrations (database.migrations)"),
        (
            "PIZZAD_<KEY>",
            "any configuration key, e.g. PIZZAD_LOG_LEVEL or PIZZAD_DATABASE_BUSY_TIMEOUT_MS; pizzad.yaml(5) names each"
        ),
        ("STATE_DIRECTORY", "set by systemd (StateDirectory=): the database goes there"),
        ("RUNTIME_DIRECTORY", "set by systemd (RuntimeDirectory=): the socket goes there unless passed"),
        ("CONFIGURATION_DIRECTORY", "set by systemd (ConfigurationDirectory=): pizzad.yaml is read from there"),
        ("CREDENTIALS_DIRECTORY", "set by systemd (LoadCredential=): pgpassword, the central role's password"),
        (
            "LISTEN_FDS, LISTEN_FDNAMES, LISTEN_PID",
            "sockets passed by systemd: pizzad.sock, and metrics for the HTTP endpoint"
        ),
        ("NOTIFY_SOCKET", "where READY=1, STATUS=, STOPPING=1 and EXTEND_TIMEOUT_USEC= go"),
        ("WATCHDOG_USEC, WATCHDOG_PID", "how often WATCHDOG=1 is due"),
        ("JOURNAL_STREAM", "log lines carry syslog priority prefixes when it is set"),
    ]

    static let files: [(path: String, text: String)] = [
        ("/etc/pizzad/pizzad.yaml", "the configuration (pizzad.yaml(5))"),
        ("/var/lib/pizzad/pizzad.sqlite", "the database, with its -wal and -shm files; read it with sqlite3(1)"),
        ("/run/pizzad/pizzad.sock", "the control socket, 0660, group pizzad"),
        ("/usr/share/pizzad/migrations/", "the numbered SQL migrations, and central/ for the central PostgreSQL"),
        ("/usr/share/pizzad/monitoring/", "Prometheus alert rules and a Grafana dashboard"),
        ("/usr/lib/sysusers.d/pizzad.conf", "the pizzad user, and the pizzad group whose members may use the socket"),
    ]

    static let restore = """
        The copy is built beside the database (.restoring), checked as a whole (integrity_check, foreign keys, the audit \
        chain, every order against its last entry), fsynced and renamed into place; a database it replaces is moved \
        to <database>.replaced-<UTC time>, never deleted. From the centre, every entry's hash is recomputed from its \
        fields and must be the centre's, the shop key is the centre's, and the shipped mark is set to the last entry \
        restored, so shipping goes on after the restart with no diverged and no duplicate. Run as root, the new file \
        is given to the owner of the database's folder.
        """

    static let stopping = """
        Stops gracefully: STOPPING=1, new connections are refused, requests under way finish (shutdown.graceSeconds), \
        the WAL is checkpointed, exit 0.
        """

    static let systemd = """
        pizzad.service runs it as Type=notify: READY=1 only after the migrations ran and the socket listens, STATUS= \
        lines, WATCHDOG=1 while the writer and the socket loop answer, and more start time asked for while a migration \
        runs. pizzad.socket creates /run/pizzad/pizzad.sock before it starts. Off until enabled, each passing its \
        listener to pizzad: pizzad-metrics.socket the HTTP metrics endpoint on 127.0.0.1:9464, pizzad-board.socket \
        the kitchen board's page on 127.0.0.1:9465, pizzad-api.socket the order API on port 8443 of every address \
        (TLS: api.tls.certificate and api.tls.key). systemctl reload pizzad first runs pizzad check-config, so a file \
        that would be refused fails the reload itself; the reload also reads the order API's certificate and key \
        again.
        """
}
