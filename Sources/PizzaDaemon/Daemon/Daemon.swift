import Foundation
import Logging
import NIOPosix
import PizzaAPI
import PizzaCore
import PizzaProtocol
import PizzaReplication
import PizzaStorage
import PizzaWire
import SQLite
import ServiceLifecycle

#if canImport(Glibc)
    import Glibc
#endif

/// pizzad from start to exit: configuration, database, repository and subscribers, control socket, systemd.
public enum Daemon {
    /// Exit codes (sysexits.h), so systemd can be told not to restart on the ones a restart cannot fix.
    enum ExitCode {
        static let ok: Int32 = 0
        static let failure: Int32 = 1
        static let usage: Int32 = 64
        static let badDatabase: Int32 = 65
        static let unavailable: Int32 = 69
        static let cannotCreate: Int32 = 73
        static let temporaryFailure: Int32 = 75
        static let badConfiguration: Int32 = 78
    }

    /// `pizzad check-config`: loads the configuration exactly as a start or a `SIGHUP` reload reads it and prints
    /// the verdict, so `systemctl reload` (whose `ExecReload=` runs this before signalling) fails, with the reason on
    /// the operator's terminal, when the daemon would refuse the file.
    static func checkConfiguration(_ loader: ConfigurationLoader) async -> Int32 {
        let file = (try? loader.configurationFile()).flatMap { $0 } ?? "built-in defaults"
        do {
            let configuration = try await loader.load()
            try APIServer.checkFiles(configuration.api)
            print("pizzad: configuration OK (\(file))")
            return ExitCode.ok
        } catch {
            complain("configuration refused: \(error)", environment: loader.environment)
            return ExitCode.badConfiguration
        }
    }

    /// `pizzad migrate-central`: brings the central PostgreSQL's schema (`migrations/central`) up to this pizzad's,
    /// connecting as `replication.postgres.user` (the database owner, once, before shops ship with their own roles).
    static func migrateCentral(_ loader: ConfigurationLoader) async -> Int32 {
        LoggingSystem.bootstrap { label in DaemonLogHandler(label: label, journal: false) }
        let configuration: DaemonConfiguration
        do {
            configuration = try await loader.load()
        } catch {
            complain("configuration refused: \(error)", environment: loader.environment)
            return ExitCode.badConfiguration
        }
        do {
            guard let replication = configuration.replication else {
                complain("replication.postgres.host is not configured", environment: loader.environment)
                return ExitCode.badConfiguration
            }
            let migrations = try Migration.load(from: try findMigrations(configuration) + "/central")
            let version = try await CentralSchema.migrate(
                replication, migrations: migrations, environment: loader.environment, logger: Logger(label: "pizzad"))
            print("pizzad: central schema at version \(version) in \(replication.peer)")
            return ExitCode.ok
        } catch {
            complain("\(error)", environment: loader.environment)
            return ExitCode.failure
        }
    }

    /// Writes `text` to stderr as an error: under systemd (`JOURNAL_STREAM`) with the priority prefix `<3>`, so that
    /// `journalctl -p err` shows why a check, a reload or a start was refused (sd-daemon(3)).
    static func complain(_ text: String, environment: [String: String]) {
        let prefix = environment["JOURNAL_STREAM"] != nil ? "<3>" : ""
        FileHandle.standardError.write(Data("\(prefix)pizzad: \(text)\n".utf8))
    }

    /// Runs the daemon with the configuration `loader` reads, until SIGTERM or SIGINT; returns the exit code.
    static func serve(_ loader: ConfigurationLoader) async -> Int32 {
        raiseOpenFileLimit()
        let journal = loader.environment["JOURNAL_STREAM"] != nil
        LoggingSystem.bootstrap { label in DaemonLogHandler(label: label, journal: journal) }
        return await run(loader, logger: Logger(label: "pizzad"), control: DaemonControl(usesSignals: true))
    }

    /// Runs the daemon with the configuration `loader` reads, logging to `logger`, until `control` stops it (or the
    /// signals it traps); returns the exit code. A test runs it in its own process with a control of its own.
    static func run(_ loader: ConfigurationLoader, logger: Logger, control: DaemonControl) async -> Int32 {
        let environment = loader.environment
        let notifier = SystemdNotifier(environment: environment)

        let configuration: DaemonConfiguration
        do {
            configuration = try await loader.load()
        } catch {
            logger.critical("bad configuration: \(error)")
            notifier.notify("STATUS=bad configuration: \(error)")
            return ExitCode.badConfiguration
        }
        DaemonLogHandler.sharedLevel = configuration.logLevel  // every logger's, as SIGHUP changes it
        do {
            try APIServer.checkFiles(configuration.api)
        } catch {
            logger.critical("bad configuration: \(error)")
            notifier.notify("STATUS=bad configuration: \(error)")
            return ExitCode.badConfiguration
        }

        // From here a SIGTERM waits for the services, and stops them gracefully, rather than killing a start.
        await control.trapSignals()
        let store: SQLiteOrderStore
        let migrationsPath: String
        let centralMigrations: [Migration]
        do {
            migrationsPath = try findMigrations(configuration)
            let migrations = try Migration.load(from: migrationsPath)
            centralMigrations =
                configuration.replication == nil ? [] : try Migration.load(from: migrationsPath + "/central")
            // Made durably: a folder whose own name was never fsynced takes the database with it at a power cut.
            try DurableFiles.createDirectories(DurableFiles.parent(of: configuration.databasePath))
            store = try SQLiteOrderStore(
                path: configuration.databasePath, migrations: migrations,
                settings: ConnectionSettings(
                    synchronous: configuration.synchronous,
                    busyTimeoutMilliseconds: configuration.busyTimeoutMilliseconds),
                checkpoints: configuration.checkpoints
            ) { [logger] pending, bytes in
                // A migration may rebuild tables: about as long as copying the file (some 40 s for 1.4 GB here).
                // Ask systemd for a minute plus a minute per GiB more before it gives up on the start.
                let names = pending.map(\.name).joined(separator: ", ")
                logger.notice(
                    "upgrading the database schema", metadata: ["migrations": "\(names)", "bytes": "\(bytes)"])
                let extend = 60_000_000 * (1 + UInt64(bytes >> 30))
                notifier.notify("STATUS=upgrading the database schema: \(names)\nEXTEND_TIMEOUT_USEC=\(extend)")
            }
        } catch {
            logger.critical("cannot use the database: \(error)")
            notifier.notify("STATUS=cannot use the database: \(error)")
            return ExitCode.badDatabase
        }

        let group = control.eventLoopGroup
        let passed = SocketActivation(environment: environment)
        let state: DaemonState
        let server: ControlSocketServer
        let metricsServer: HTTPEndpoint?
        let boardServer: HTTPEndpoint?
        let apiServer: APIServer?
        do {
            state = try await DaemonState(
                store: store, configuration: configuration, daemonUID: getuid(), logger: logger,
                centralMigrations: centralMigrations, environment: environment, taskExecutor: control.taskExecutor,
                group: group, shippingLoop: control.shippingLoop)
            server = try await ControlSocketServer.bind(
                configuration: configuration, state: state, group: group, passed: passed.control, logger: logger)
            metricsServer = try await HTTPEndpoint.metrics(
                address: configuration.metricsListen, passed: passed.metrics, state: state, group: group,
                logger: logger)
            state.metricsAddress.withLock { $0 = metricsServer?.address }
            boardServer = try await HTTPEndpoint.board(
                settings: configuration.board, passed: passed.board, state: state, group: group, logger: logger)
            apiServer = try await startAPI(
                configuration, passed: passed.api, migrationsPath: migrationsPath, state: state, group: group,
                logger: logger)
        } catch {
            logger.critical("cannot start: \(error)")
            notifier.notify("STATUS=cannot start: \(error)")
            // The API's configuration at fault (plain HTTP on a socket beyond loopback, say): restarting cannot help.
            if let error = error as? APIServer.StartError, error.isConfiguration { return ExitCode.badConfiguration }
            return ExitCode.failure
        }

        server.whenShuttingDown { notifier.notify("STOPPING=1\nSTATUS=stopping: finishing requests under way") }
        let reload = await ReloadService(
            loader: loader, current: configuration, state: state, notifier: notifier, logger: logger,
            trapsHangUp: control.usesSignals)
        let health = HealthService(state: state, server: server, notifier: notifier, logger: logger) { [logger] in
            // The service group is running, so SIGTERM and SIGINT already lead to a graceful shutdown.
            logger.info(
                "pizzad \(DaemonState.version) ready",
                metadata: [
                    "pid": "\(getpid())", "database": "\(store.path)", "socket": "\(server.path)",
                    "config": "\(configuration.file ?? "built-in defaults")", "migrations": "\(migrationsPath)",
                    "tasks": "\(TasksOnEventLoops.described)",
                ])
            if let warning = TasksOnEventLoops.warning { logger.warning("\(warning)") }
            notifier.notify("READY=1\nSTATUS=\(HealthService.statusLine(state: state))\nMAINPID=\(getpid())")
        }
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: server), .init(service: health), .init(service: reload),
        ]
        if let metricsServer { services.append(.init(service: metricsServer)) }
        if let boardServer { services.append(.init(service: boardServer)) }
        if let apiServer, let api = state.api.value {
            services.append(.init(service: apiServer))
            services.append(.init(service: DeviceSeenRecorder(directory: api.directory)))
        }
        if let replicator = state.replicator {
            // Shipping never takes the shop down: whatever becomes of it, the other services go on.
            services.append(
                .init(service: replicator, successTerminationBehavior: .ignore, failureTerminationBehavior: .ignore))
        }
        if let outbox = state.outbox {
            // Printers and webhooks never take the shop down either.
            services.append(
                .init(service: outbox, successTerminationBehavior: .ignore, failureTerminationBehavior: .ignore))
        }
        let serviceGroup = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: services,
                gracefulShutdownSignals: control.usesSignals ? [.sigterm, .sigint] : [],
                logger: logger))
        await control.hand(to: serviceGroup, reload: reload)
        if control.requested { logger.notice("asked to stop while starting: stopping") }
        do {
            try await serviceGroup.run()
        } catch {
            logger.error("stopped on an error: \(error)")
        }
        notifier.notify("STOPPING=1\nSTATUS=stopping: checkpointing the database")
        await store.close()
        logger.info("stopped cleanly")
        return ExitCode.ok
    }

    /// The order API on the socket systemd passed (`api`), else on `api.listen`; nil when neither is given.
    static func startAPI(
        _ configuration: DaemonConfiguration, passed: SocketActivation.PassedSocket?, migrationsPath: String,
        state: DaemonState, group: MultiThreadedEventLoopGroup, logger: Logger
    ) async throws -> APIServer? {
        let settings = configuration.api
        let listener: APIServer.Listener
        if let passed {
            listener = .passed(passed.descriptor)
        } else if let host = settings.host {
            listener = .address(host: host, port: settings.port)
        } else {
            return nil
        }
        let uid = getuid()
        let api = try OrderAPI(
            orders: state.orders, factory: { state.factory },
            daemon: ChangeActor(uid: uid, name: Peer.userName(of: uid) ?? String(uid), pid: getpid()),
            document: try openAPIDocument(besideMigrations: migrationsPath), settings: settings, events: state.events)
        let server = try await APIServer(api: api, listener: listener, group: group, logger: logger)
        state.api.withLock { $0 = api }
        logger.info(
            passed != nil ? "serving the order API on the socket passed by systemd" : "serving the order API",
            metadata: ["api": "\(server.scheme)://\(server.address)/v1/"])
        return server
    }

    /// The OpenAPI document the API serves: installed beside the migrations (`/usr/share/pizzad/openapi.yaml`), or
    /// in the source tree's `docs/`.
    static func openAPIDocument(besideMigrations migrations: String) throws -> String {
        let parent = URL(fileURLWithPath: migrations).deletingLastPathComponent()
        let candidates = [
            parent.appendingPathComponent("openapi.yaml"), parent.appendingPathComponent("docs/openapi.yaml"),
        ]
        for candidate in candidates {
            if let text = try? String(contentsOf: candidate, encoding: .utf8) { return text }
        }
        throw APIServer.StartError(
            description: "the order API's document is in none of \(candidates.map(\.path).joined(separator: ", "))")
    }

    /// Lets the daemon hold as many connections as the hard limit allows (the soft limit is often 1024).
    static func raiseOpenFileLimit() {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }

    /// The migrations folder: configured, or installed beside the binary, or in the working directory, or in
    /// the source tree this binary was built from.
    static func findMigrations(_ configuration: DaemonConfiguration) throws -> String {
        if let configured = configuration.migrationsPath { return configured }
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent()
        var source = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { source.deleteLastPathComponent() }
        let candidates = [
            executable.appendingPathComponent("../share/pizzad/migrations").standardized.path,
            FileManager.default.currentDirectoryPath + "/migrations",
            source.appendingPathComponent("migrations").path,
        ]
        var isDirectory: ObjCBool = false
        for candidate in candidates where FileManager.default.fileExists(atPath: candidate, isDirectory: &isDirectory) {
            if isDirectory.boolValue { return candidate }
        }
        throw StorageError.migrationsNotFound(searched: candidates)
    }
}
