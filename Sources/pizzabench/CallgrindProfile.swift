import Foundation

/// The parts of a callgrind output file (one event, `Ir`) that the count needs: each function's own instructions
/// and how often each function was called. Functions are named as callgrind names them, with the object they are
/// in when it is a bare address (Debian's libsqlite3 keeps no names for its static functions).
struct CallgrindProfile {
    init() {}

    private(set) var total: UInt64 = 0
    private(set) var selfCost: [String: UInt64] = [:]
    private(set) var calls: [String: UInt64] = [:]
    /// The instructions spent in calls to each function, callees included, from any caller but itself.
    private(set) var callCost: [String: UInt64] = [:]

    init(_ text: String) {
        var objects: [Substring: Substring] = [:]
        var functions: [Substring: String] = [:]
        var object: Substring = ""
        // The object a `cob=` line names for the `cfn=` after it (a call into another object).
        var calleeObject: Substring?
        var function: String?
        var callee: String?
        // The cost line after a `calls=` line is that call's inclusive cost, not the caller's own.
        var callCostNext = false
        var callCostOf: String?
        for line in text.split(separator: "\n") {
            guard let first = line.first else { continue }
            if first.isNumber || first == "+" || first == "-" || first == "*" {
                if callCostNext {
                    callCostNext = false
                    if let callee = callCostOf, callee != function,
                        let cost = line.split(separator: " ").last.flatMap({ UInt64($0) })
                    {
                        callCost[callee, default: 0] += cost
                    }
                } else if let function, let cost = line.split(separator: " ").last.flatMap({ UInt64($0) }) {
                    selfCost[function, default: 0] += cost
                    total += cost
                }
                continue
            }
            guard let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals]
            let value = line[line.index(after: equals)...]
            switch key {
            case "ob", "cob":
                let (id, name) = Self.compressed(value)
                if let name { objects[id] = name }
                if key == "ob" { object = objects[id] ?? "" } else { calleeObject = objects[id] }
            case "fn", "cfn":
                let (id, name) = Self.compressed(value)
                if let name {
                    let inObject = key == "fn" ? object : calleeObject ?? object
                    functions[id] =
                        name.hasPrefix("0x") ? "\(name) in \((inObject as NSString).lastPathComponent)" : String(name)
                }
                if key == "fn" { function = functions[id] } else { callee = functions[id] }
                if key == "cfn" { calleeObject = nil }
            case "calls":
                if let callee, let count = value.split(separator: " ").first.flatMap({ UInt64($0) }) {
                    calls[callee, default: 0] += count
                }
                callCostNext = true
                callCostOf = callee
            default: continue
            }
        }
    }

    /// Whether this thread's profile ran an event loop: SwiftNIO's (`SelectableEventLoop.run()`) or socketwork.c's
    /// `loop`.
    var isEventLoop: Bool {
        selfCost.keys.contains { $0 == "loop" || $0.hasPrefix("$s8NIOPosix19SelectableEventLoopC3run") }
    }

    /// The profiles of a process's threads (callgrind's `--separate-threads=yes` writes a file for each) as one.
    mutating func add(_ other: CallgrindProfile) {
        total += other.total
        selfCost.merge(other.selfCost, uniquingKeysWith: +)
        calls.merge(other.calls, uniquingKeysWith: +)
        callCost.merge(other.callCost, uniquingKeysWith: +)
    }

    /// `(12) name` → ("12", "name"); `(12)` → ("12", nil).
    private static func compressed(_ value: Substring) -> (Substring, Substring?) {
        guard value.hasPrefix("("), let close = value.firstIndex(of: ")") else { return (value, value) }
        let id = value[value.index(after: value.startIndex)..<close]
        let rest = value[value.index(after: close)...].drop { $0 == " " }
        return (id, rest.isEmpty ? nil : rest)
    }
}
