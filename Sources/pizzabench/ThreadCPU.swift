import Foundation

/// A server's CPU split between its event loops and the rest (the writer, above all), from `/proc/PID/task`: each
/// thread's user and system time and the times it was preempted (`nonvoluntary_ctxt_switches`). The loops are the
/// threads SwiftNIO names `NIO-…` and socketwork.c names `loop-…`, so pizzad and the bound split the same way.
struct ThreadCPU {
    /// One thread's figures.
    struct Thread {
        var loop: Bool
        var ticks: Int
        var preemptions: Int
    }

    /// By thread id.
    var threads: [Int: Thread]

    /// The threads of `pid` now (none when it is gone).
    init(of pid: Int32) {
        var threads: [Int: Thread] = [:]
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        for task in tasks {
            let base = "/proc/\(pid)/task/\(task)/"
            guard let id = Int(task), let name = try? String(contentsOfFile: base + "comm", encoding: .utf8),
                let stat = try? String(contentsOfFile: base + "stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            // After the name: state is the first field, utime and stime the 12th and 13th.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 12 else { continue }
            let status = (try? String(contentsOfFile: base + "status", encoding: .utf8)) ?? ""
            let preempted = status.split(separator: "\n").first { $0.hasPrefix("nonvoluntary_ctxt_switches:") }
            threads[id] = Thread(
                loop: name.hasPrefix("NIO-") || name.hasPrefix("loop-"),
                ticks: (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0),
                preemptions: preempted.flatMap {
                    Int(String($0.split(separator: ":").last ?? "").trimmingCharacters(in: .whitespaces))
                } ?? 0)
        }
        self.threads = threads
    }

    /// What the loops and the rest used from `earlier` to this, in seconds, and how often the loops were
    /// preempted. A thread that started meanwhile counts from zero; one that ended is left out.
    func since(_ earlier: ThreadCPU) -> (loopSeconds: Double, otherSeconds: Double, loopPreemptions: Int) {
        let tick = Double(sysconf(Int32(_SC_CLK_TCK)))
        var loop = 0
        var other = 0
        var preemptions = 0
        for (id, now) in threads {
            let before = earlier.threads[id] ?? Thread(loop: now.loop, ticks: 0, preemptions: 0)
            if now.loop {
                loop += now.ticks - before.ticks
                preemptions += now.preemptions - before.preemptions
            } else {
                other += now.ticks - before.ticks
            }
        }
        return (Double(loop) / tick, Double(other) / tick, preemptions)
    }
}
