/// Keeps the checks that time something apart from the test that loads the whole machine.
///
/// The booted-systemd test builds two Debian packages, may run debootstrap, copies a root file system and boots
/// it: minutes of CPU and, worse, of disk writes that make every fsync wait. A check with a time bound ("2,400
/// orders within 60 s", "a scrape within 1.5 s") beside it measures that, not pizzad. Timed checks share the
/// machine with each other; the heavy test waits until none runs, and they wait while it runs.
public actor MachineShare {
    public static let shared = MachineShare()

    private var timedRunning = 0
    private var heavyRunning = false
    private var waiting: [(heavy: Bool, continuation: CheckedContinuation<Void, Never>)] = []

    private func canEnter(heavy: Bool) -> Bool { heavy ? !heavyRunning && timedRunning == 0 : !heavyRunning }

    private func enter(heavy: Bool) {
        if heavy { heavyRunning = true } else { timedRunning += 1 }
    }

    public func acquire(heavy: Bool) async {
        // First come, first served: nobody overtakes a waiting heavy test.
        if waiting.isEmpty, canEnter(heavy: heavy) {
            enter(heavy: heavy)
            return
        }
        await withCheckedContinuation { waiting.append((heavy, $0)) }
    }

    public func release(heavy: Bool) {
        if heavy { heavyRunning = false } else { timedRunning -= 1 }
        while let first = waiting.first, canEnter(heavy: first.heavy) {
            waiting.removeFirst()
            enter(heavy: first.heavy)
            first.continuation.resume()
        }
    }
}

/// Runs `body` as a timed check (`heavy: false`) or as the heavy test (`heavy: true`); see ``MachineShare``.
public func withMachine<T>(heavy: Bool, _ body: () async throws -> T) async throws -> T {
    await MachineShare.shared.acquire(heavy: heavy)
    do {
        let result = try await body()
        await MachineShare.shared.release(heavy: heavy)
        return result
    } catch {
        await MachineShare.shared.release(heavy: heavy)
        throw error
    }
}
