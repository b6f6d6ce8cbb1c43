import PizzaReplication

extension ReplicationConfiguration {
    /// `replication.*`: nil unless `replication.postgres.host` is set; then the shop id, database and user must be.
    init?(reading values: ConfigurationValues) throws(ConfigurationError) {
        guard let host = values.text("replication.postgres.host") else {
            for key in ["replication.shopId", "replication.postgres.database", "replication.postgres.user"]
            where values.text(key) != nil {
                throw ConfigurationError(
                    source: values.source(key), key: "replication.postgres.host",
                    problem: "is missing, so \(key) has no effect",
                    allowed: "the central PostgreSQL's host name or address")
            }
            return nil
        }
        func missing(_ key: String) -> ConfigurationError {
            ConfigurationError(
                source: values.source("replication.postgres.host"), key: key,
                problem: "is required when replication.postgres.host is set",
                allowed: ConfigurationSchema.allowed(for: key))
        }
        func required(_ key: String) throws(ConfigurationError) -> String {
            guard let value = values.text(key) else { throw missing(key) }
            return value
        }
        guard let shopID = try values.setting("replication.shopId", { Self.isShopID($0) ? $0 : nil }) else {
            throw missing("replication.shopId")
        }
        self.init(
            shopID: shopID,
            host: host,
            port: try values.integer("replication.postgres.port"),
            database: try required("replication.postgres.database"),
            user: try required("replication.postgres.user"),
            passwordFile: values.text("replication.postgres.passwordFile"),
            tls: try values.defaulted("replication.postgres.tls") { TLSMode(rawValue: $0.lowercased()) },
            caFile: try values.setting("replication.postgres.caFile") { Self.isCertificateFile($0) ? $0 : nil },
            batchSize: try values.integer("replication.batchSize"),
            timeoutSeconds: try values.integer("replication.timeoutSeconds"),
            idleCheckSeconds: try values.integer("replication.idleCheckSeconds"))
    }
}
