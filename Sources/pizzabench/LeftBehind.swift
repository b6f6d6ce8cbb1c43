import Dispatch
import Foundation
import PizzaCore

/// What an interrupted run would leave behind: the PostgreSQL clusters the benchmark started (`pg_ctl` runs them
/// as daemons of their own) and its folder. A normal end stops each where it is done with it. On SIGINT or
/// SIGTERM the benchmark's own children (pizzad, pgbench, samework) are frozen first, so that the load threads
/// and the main flow, blocked on them, do not fail and crash half-way; then the registered actions run, newest
/// first; then the children are killed and the benchmark exits with 128 + the signal.
enum LeftBehind {
    private struct Actions {
        var next = 0
        var pending: [(id: Int, action: @Sendable () -> Void)] = []
    }

    private static let actions = Locked(Actions())
    /// Kept for the life of the process: a released source stops delivering.
    private static let sources = Locked<[any DispatchSourceSignal]>([])

    /// Registers what stops something the benchmark started; returns the token to hand to ``done(_:)`` once it is
    /// stopped the normal way.
    static func stopOnInterrupt(_ action: @escaping @Sendable () -> Void) -> Int {
        actions.withLock { actions in
            actions.next += 1
            actions.pending.append((actions.next, action))
            return actions.next
        }
    }

    static func done(_ token: Int) {
        actions.withLock { $0.pending.removeAll { $0.id == token } }
    }

    /// Catches SIGINT and SIGTERM for the rest of the run.
    static func catchInterrupts() {
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                let children = children()
                for child in children { kill(child, SIGSTOP) }
                let pending = actions.withLock { actions in
                    defer { actions.pending.removeAll() }
                    return actions.pending
                }
                print("\npizzabench: interrupted; stopping what it started")
                for (_, action) in pending.reversed() { action() }
                for child in children { kill(child, SIGKILL) }
                fflush(nil)  // every output stream: `_exit` flushes none
                _exit(128 + number)
            }
            source.resume()
            sources.withLock { $0.append(source) }
        }
    }

    /// This process's children, from `/proc`.
    private static func children() -> [pid_t] {
        let me = getpid()
        return ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { entry in
            guard let pid = pid_t(entry),
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return nil }
            // After "pid (comm) ": the state, then the parent's pid.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && pid_t(fields[1]) == me ? pid : nil
        }
    }
}
