// ThreadSanitizer's false positive in `swift test --sanitize=thread` (docs/TESTING.md), without pizzad: objects made
// on a DispatchQueue and handed to child tasks through a CheckedContinuation, which orders the writes before the
// reads, are reported as a data race between their `init` and the reads. Run it:
//
//     swiftc -sanitize=thread -parse-as-library scripts/tsan-continuation-repro.swift -o /tmp/tsan-repro
//     TSAN_OPTIONS=log_path=/tmp/tsan-repro.log /tmp/tsan-repro; ls /tmp/tsan-repro.log.*
//
// (Swift 6.3.1 on Linux: a report in every run of three.)
import Dispatch

final class Change: Sendable {
    let kind: Int
    let text: String
    init(kind: Int, text: String) {
        self.kind = kind
        self.text = text
    }
}

final class Outcome: Sendable {
    let cart: [Int]
    let change: Change?
    init(cart: [Int], change: Change?) {
        self.cart = cart
        self.change = change
    }
    var created: Bool { change?.kind == 1 }
}

/// As pizzad's PendingChange: the writer runs it, then calls its completion with the outcome.
final class Pending: @unchecked Sendable {
    let completion: @Sendable (Result<Outcome, any Error>) -> Void
    var outcome: Outcome?
    init(completion: @escaping @Sendable (Result<Outcome, any Error>) -> Void) { self.completion = completion }
    func run(_ n: Int) { outcome = Outcome(cart: [n], change: Change(kind: 1, text: "order \(n)")) }
    func committed() { if let outcome { completion(.success(outcome)) } }
}

let writer = DispatchQueue(label: "writer")

func perform(_ n: Int) async throws -> Outcome {
    try await withCheckedThrowingContinuation { continuation in
        let pending = Pending { continuation.resume(with: $0) }
        writer.async {
            pending.run(n)
            pending.committed()
        }
    }
}

@main struct Repro {
    static func main() async throws {
        let total = try await withThrowingTaskGroup(of: Int.self) { group in
            for task in 0..<4 {
                group.addTask {
                    var odd = 0
                    for n in 0..<500 {
                        let outcome = try await perform(n + task)
                        if outcome.created { odd += outcome.cart[0] & 1 }
                    }
                    return odd
                }
            }
            return try await group.reduce(0, +)
        }
        print("done", total)
    }
}
