public import Logging
public import PizzaStorage

/// The central schema, for `pizzad migrate-central`.
public enum CentralSchema {
    /// Connects as `configuration.user`, applies what is pending of `migrations`, returns the version in force.
    public static func migrate(
        _ configuration: ReplicationConfiguration, migrations: [Migration], environment: [String: String],
        logger: Logger
    ) async throws -> Int {
        let central = try await CentralDatabase.connect(
            configuration, password: try configuration.password(environment: environment), logger: logger)
        do {
            let version = try await central.prepareSchema(migrations)
            await central.close()
            return version
        } catch {
            await central.close()
            throw error
        }
    }
}
