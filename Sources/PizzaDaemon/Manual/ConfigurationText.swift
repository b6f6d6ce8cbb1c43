/// The prose of `pizzad.yaml(5)` around the keys, which come from ``ConfigurationSchema/keys``.
enum ConfigurationText {
    static let description = """
        pizzad reads its configuration from --config PATH, else $PIZZAD_CONFIG, else pizzad.yaml in \
        $CONFIGURATION_DIRECTORY (/etc/pizzad under systemd), else config/pizzad.yaml in the working directory, \
        else it runs on built-in defaults. Every key is optional.
        Precedence: command-line flags, then PIZZAD_* environment variables, then this file, then the defaults. Any \
        key can be set from the environment as PIZZAD_ and the key in capitals with underscores: log.level is \
        PIZZAD_LOG_LEVEL, database.busyTimeoutMs is PIZZAD_DATABASE_BUSY_TIMEOUT_MS, a list is comma-separated text \
        (PIZZAD_ACCESS_OPERATORS=alice,@kitchen).
        An unknown key, a wrong type or a bad value stops start-up (exit 78) and a reload with one line naming the \
        file, the key and what is allowed. pizzad check-config checks a file without starting.
        """

    static let example = """
        database:
          synchronous: FULL
        log:
          level: info
        access:
          operators: ["@pizzad"]
          readers: [kitchen-screen]
        menu:
          currency: EUR
          crusts: [classic, thin]
          extras: {olives: 80, bacon: 150}
          kinds:
            calzone:
              prices: {M: 1000, L: 1200}
              size: M
              crust: classic
        """
}
