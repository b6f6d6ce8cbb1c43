import CSystemShims
import Foundation

/// Runs a program to completion with `posix_spawn` and `waitpid`, its standard output and error in one file.
///
/// Foundation's `Process` reaps its children from a SIGCHLD handler of its own and was seen to miss an exit
/// (`waitUntilExit` hung after `runuser … pg_ctl start` had long returned); a child spawned here is waited for by
/// its own pid and by nobody else, so the wait ends when the child does.
public enum ChildProcess {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Runs `program` (an absolute path) with `arguments` in `/`, standard input from `/dev/null` and this process's
    /// environment plus `environment`; returns the exit status (128 + the signal when killed) and the trimmed output.
    /// Killed after `timeout` seconds.
    public static func run(
        _ program: String, _ arguments: [String], environment: [String: String] = [:], timeout: Double = 120
    ) throws -> (status: Int32, output: String) {
        let result = try capture(
            program, arguments, environment: environment, directory: "/", mergingErrors: true, timeout: timeout)
        return (result.status, result.output.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// What a program run by ``capture(_:_:environment:input:directory:mergingErrors:timeout:)`` left.
    public struct Captured: Sendable {
        /// The exit status, 128 + the signal's number when a signal ended it.
        public var status: Int32
        /// Its standard output (and standard error too, when they were merged).
        public var output: String
        /// Its standard error, when kept apart.
        public var errors: String
    }

    /// Runs `program` (a path, or a name looked up in `PATH`) with `arguments` in `directory` (this process's own
    /// when nil), `input` on its standard input (`/dev/null` when nil) and this process's environment plus
    /// `environment`, and waits for it; killed after `timeout` seconds.
    ///
    /// Its outputs go to files, so nothing can fill a pipe, and it inherits no descriptor of this process. Nothing of
    /// Foundation's `Process` is used: besides the missed exits above, its `run()` lists `/proc/self/fd` with an
    /// over-read (swift-corelibs-foundation's pull request 5472, fixed after Swift 6.3.1) that crashed a test run
    /// once the process held about 1,350 descriptors, and a `Process` whose exit was seen by polling `isRunning`
    /// keeps its pipes open for the life of the process.
    public static func capture(
        _ program: String, _ arguments: [String], environment: [String: String] = [:], input: String? = nil,
        directory: String? = nil, mergingErrors: Bool = false, timeout: Double = 120
    ) throws -> Captured {
        let base = MemoryFolder.temporary + "child-\(UUID().uuidString)"
        let (outputPath, errorPath, inputPath) = (base + ".out", base + ".err", base + ".in")
        defer { for path in [outputPath, errorPath, inputPath] { unlink(path) } }
        if let input { try Data(input.utf8).write(to: URL(fileURLWithPath: inputPath)) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, input == nil ? "/dev/null" : inputPath, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        if mergingErrors {
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        } else {
            posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        }
        // Nothing else of this process: a server the child starts (pg_ctl's postgres) would keep every descriptor
        // open here at this moment for its whole life, among them the write ends of other children's output pipes,
        // whose readers then never see the end (a test run hung on one for 15 minutes).
        let closing = pizzad_spawn_close_from(&actions, 3)
        guard closing == 0 else {
            throw Failure(description: "closing descriptors for \(program): \(String(cString: strerror(closing)))")
        }
        // `env -C` starts it in the folder (a server run as another user may not enter the caller's), and finds a
        // program given by name in `PATH`.
        let folder = directory ?? FileManager.default.currentDirectoryPath
        let argv = (["/usr/bin/env", "-C", folder, program] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let variables = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let envp = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in envp { free(pointer) } }
        // A clean signal state: the spawning thread's mask is inherited, and a test runner's threads block most
        // signals, so a server started here (PgBouncer) never saw the SIGTERM meant to stop it.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/usr/bin/env", &actions, &attributes, argv, envp)
        guard spawned == 0 else { throw Failure(description: "\(program): \(String(cString: strerror(spawned)))") }
        let killer = DispatchWorkItem { kill(pid, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: killer)
        defer { killer.cancel() }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else {
                throw Failure(description: "waitpid \(program): \(String(cString: strerror(errno)))")
            }
        }
        let signal = status & 0x7f
        let read = { (path: String) in
            String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self)
        }
        return Captured(
            status: signal == 0 ? (status >> 8) & 0xff : 128 + signal, output: read(outputPath),
            errors: mergingErrors ? "" : read(errorPath))
    }
}
