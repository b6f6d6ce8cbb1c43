import PizzaReplication

extension ReplicationConfiguration {
    /// `replication.*`: nil unless `replication.postgres.host` is set; then the shop id, database and user must be.
    init?(reading values: ConfigurationValues) throws(ConfigurationError) {
        let hostKey = ConfigurationKey.replicationHost
        guard let host = values.text(hostKey) else {
            for key in [ConfigurationKey.replicationShopID, .replicationDatabase, .replicationUser]
            where values.text(key) != nil {
                throw ConfigurationError(
                    source: values.source(key), key: hostKey.path, problem: "is missing, so \(key.path) has no effect",
                    allowed: "the central PostgreSQL's host name or address")
            }
            return nil
        }
        func missing(_ key: ConfigurationKey) -> ConfigurationError {
            ConfigurationError(
                source: values.source(hostKey), key: key.path, problem: "is required when \(hostKey.path) is set",
                allowed: key.allowedDescription)
        }
        func required(_ key: ConfigurationKey) throws(ConfigurationError) -> String {
            guard let value = values.text(key) else { throw missing(key) }
            return value
        }
        guard let shopID = try values.setting(.replicationShopID, { Self.isShopID($0) ? $0 : nil }) else {
            throw missing(.replicationShopID)
        }
        self.init(
            shopID: shopID,
            host: host,
            port: try values.integer(.replicationPort),
            database: try required(.replicationDatabase),
            user: try required(.replicationUser),
            passwordFile: values.text(.replicationPasswordFile),
            tls: try values.defaulted(.replicationTLS) { TLSMode(rawValue: $0.lowercased()) },
            caFile: try values.setting(.replicationCAFile) { Self.isCertificateFile($0) ? $0 : nil },
            batchSize: try values.integer(.replicationBatchSize),
            timeoutSeconds: try values.integer(.replicationTimeoutSeconds),
            idleCheckSeconds: try values.integer(.replicationIdleCheckSeconds))
    }
}
