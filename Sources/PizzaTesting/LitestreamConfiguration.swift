/// A `litestream.yml` for one pizzad database and a file replica, as the operator's guide recommends it
/// (`config/litestream.yml`): Litestream looks at the WAL every `monitor`, ships to the replica every `sync`.
/// The tests and `pizzabench --only litestream` both run Litestream with it.
public enum LitestreamConfiguration {
    public static func yaml(
        database: String, replica: String, monitor: String = "100ms", sync: String = "1s", logLevel: String = "warn"
    ) -> String {
        """
        logging:
          level: \(logLevel)
        dbs:
          - path: \(database)
            monitor-interval: \(monitor)
            replica:
              type: file
              path: \(replica)
              sync-interval: \(sync)

        """
    }
}
