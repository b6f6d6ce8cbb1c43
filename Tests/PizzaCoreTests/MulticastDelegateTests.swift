import PizzaCore
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

protocol Listener {
    func heard(_ word: String)
}

final class Recorder: Listener, Sendable {
    let name: String
    let log: Log
    init(_ name: String, log: Log) {
        self.name = name
        self.log = log
    }
    func heard(_ word: String) { log.append("\(name):\(word)") }
}

final class Log: Sendable {
    private let lines = Locked<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}

final class DeinitFlag: Listener, Sendable {
    let onDeinit: @Sendable () -> Void
    init(_ onDeinit: @escaping @Sendable () -> Void) { self.onDeinit = onDeinit }
    func heard(_ word: String) {}
    deinit { onDeinit() }
}

/// Class-bound, as the repository's delegates are: `any Bell` is two words, the object and a witness table, which
/// `MulticastRegistration.call` rebuilds from the weak load instead of copying.
protocol Bell: AnyObject {
    func rang(_ times: Int)
}

protocol Light: AnyObject {
    func lit()
}

final class Ringer: Bell, Light, Sendable {
    let rings = Atomic<Int>(0)
    let onDeinit: @Sendable () -> Void
    init(onDeinit: @escaping @Sendable () -> Void = {}) { self.onDeinit = onDeinit }
    func rang(_ times: Int) { rings.add(times, ordering: .relaxed) }
    func lit() { rings.add(1000, ordering: .relaxed) }
    deinit { onDeinit() }
}

struct ValueListener: Listener {
    func heard(_ word: String) {}
}

/// Whether this test process runs under AddressSanitizer (its runtime exports `__asan_init`).
let addressSanitizerIsActive = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__asan_init") != nil

@Suite("MulticastDelegate")
struct MulticastDelegateTests {
    @Test(
        "a class-bound protocol, a composition of two and a class itself: every call arrives, no dispatch keeps a delegate alive or releases it once too often"
    )
    func delegateKinds() {
        let died = Atomic<Int>(0)
        let bells = MulticastDelegate<any Bell>()
        let both = MulticastDelegate<any Bell & Light>()
        let ringers = MulticastDelegate<Ringer>()
        do {
            let first = Ringer { died.add(1, ordering: .relaxed) }
            let second = Ringer { died.add(1, ordering: .relaxed) }
            bells.add(first)
            bells.add(second)
            both.add(first)
            ringers.add(second)
            for _ in 0..<10_000 {
                bells.invoke { $0.rang(1) }
                both.invoke { $0.lit() }
                ringers.invoke { $0.rang(2) }
            }
            #expect(first.rings.load(ordering: .relaxed) == 10_000 + 10_000 * 1000)
            #expect(second.rings.load(ordering: .relaxed) == 10_000 + 10_000 * 2)
            #expect(
                bells.delegates.map { ObjectIdentifier($0) } == [ObjectIdentifier(first), ObjectIdentifier(second)])
            #expect(died.load(ordering: .relaxed) == 0)
        }
        // Dropping the last references ends both: nothing retained is left behind by 30,000 dispatches.
        #expect(died.load(ordering: .relaxed) == 2)
        #expect(bells.isEmpty && both.isEmpty && ringers.isEmpty)
        bells.invoke { _ in Issue.record("a dead delegate was called") }
    }

    @Test("holds delegates weakly: dropping the last reference runs deinit with no remove")
    func holdsWeakly() {
        let multicast = MulticastDelegate<any Listener>()
        let died = Atomic<Bool>(false)
        do {
            let listener = DeinitFlag { died.store(true, ordering: .relaxed) }
            multicast.add(listener)
            #expect(multicast.count == 1)
        }
        let didDie = died.load(ordering: .relaxed)
        #expect(didDie)
        #expect(multicast.count == 0)
    }

    @Test("never calls a dead delegate, and count / isEmpty count live ones")
    func neverCallsDead() {
        let log = Log()
        let multicast = MulticastDelegate<any Listener>()
        let alive = Recorder("alive", log: log)
        multicast.add(alive)
        do {
            let doomed = Recorder("doomed", log: log)
            multicast.add(doomed)
            #expect(multicast.count == 2)
        }
        multicast.invoke { $0.heard("hi") }
        #expect(log.all == ["alive:hi"])
        #expect(multicast.count == 1)
        #expect(!multicast.isEmpty)
        multicast.remove(alive)
        #expect(multicast.isEmpty)
    }

    @Test("adding the same object twice registers it once")
    func addTwice() {
        let log = Log()
        let multicast = MulticastDelegate<any Listener>()
        let listener = Recorder("a", log: log)
        let first = multicast.add(listener)
        let second = multicast.add(listener)
        #expect(first == second)
        #expect(multicast.count == 1)
        multicast.invoke { $0.heard("x") }
        #expect(log.all == ["a:x"])
    }

    @Test(
        "a new object at a dead one's address is registered and called",
        .enabled(if: !addressSanitizerIsActive, "AddressSanitizer quarantines freed memory, so no address is reused")
    )
    func reusedAddress() {
        let log = Log()
        let multicast = MulticastDelegate<any Listener>()
        var seen: Set<ObjectIdentifier> = []
        var reused = false
        // Allocate and drop objects of the same size until the allocator hands an address back.
        for attempt in 0..<10_000 {
            let listener = Recorder("n\(attempt)", log: log)
            let id = ObjectIdentifier(listener)
            let registration = multicast.add(listener)
            #expect(multicast.contains(listener))
            if seen.contains(id) {
                reused = true
                multicast.invoke { $0.heard("again") }
                #expect(log.all.last == "n\(attempt):again")
                #expect(registration.isActive)
                #expect(multicast.count == 1)
                break
            }
            seen.insert(id)
        }
        #expect(reused, "the allocator never reused an address; the test proved nothing")
        #expect(multicast.isEmpty)
    }

    @Test("a value-type conformer is rejected loudly")
    func rejectsValueTypes() async {
        await #expect(processExitsWith: .failure) {
            let multicast = MulticastDelegate<any Listener>()
            multicast.add(ValueListener())
        }
    }

    @Test("calls go in registration order")
    func order() {
        let log = Log()
        let multicast = MulticastDelegate<any Listener>()
        let listeners = (0..<5).map { Recorder("\($0)", log: log) }
        listeners.forEach { multicast += $0 }
        multicast.invoke { $0.heard("go") }
        #expect(log.all == (0..<5).map { "\($0):go" })
        #expect(multicast.delegates.map { ($0 as! Recorder).name } == ["0", "1", "2", "3", "4"])
    }

    @Test("a delegate added during a dispatch is not called in that dispatch")
    func addDuringDispatch() {
        let log = Log()
        let multicast = MulticastDelegate<any Listener>()
        let first = Recorder("first", log: log)
        let late = Recorder("late", log: log)
        multicast.add(first)
        multicast.invoke { listener in
            listener.heard("one")
            multicast.add(late)
        }
        #expect(log.all == ["first:one"])
        multicast.invoke { $0.heard("two") }
        #expect(log.all == ["first:one", "first:two", "late:two"])
    }

    @Test("a delegate removed during a dispatch is not called after its removal")
    func removeDuringDispatch() {
        let log = Log()
        let multicast = MulticastDelegate<any Listener>()
        let first = Recorder("first", log: log)
        let second = Recorder("second", log: log)
        multicast.add(first)
        let registration = multicast.add(second)
        multicast.invoke { listener in
            listener.heard("x")
            registration.cancel()
        }
        #expect(log.all == ["first:x"])
        multicast.add(second)
        multicast.invoke { listener in
            listener.heard("y")
            multicast -= second
        }
        #expect(log.all == ["first:x", "first:y"])
    }

    @Test("no lock is held while a delegate runs: a delegate may dispatch again")
    func reentrantDispatch() {
        let log = Log()
        let multicast = MulticastDelegate<any Listener>()
        let listener = Recorder("r", log: log)
        multicast.add(listener)
        var depth = 0
        multicast.invoke { outer in
            outer.heard("outer")
            depth += 1
            multicast.invoke { $0.heard("inner") }
            _ = multicast.count
        }
        #expect(depth == 1)
        #expect(log.all == ["r:outer", "r:inner"])
    }

    @Test("a delegate that changes the registrations and dispatches again: the outer dispatch keeps its snapshot")
    func reentrantDispatchAfterChange() {
        let log = Log()
        let multicast = MulticastDelegate<any Listener>()
        let first = Recorder("first", log: log)
        let second = Recorder("second", log: log)
        let late = Recorder("late", log: log)
        let other = MulticastDelegate<any Listener>()
        other.add(late)
        multicast.add(first)
        multicast.add(second)
        var nested = 0
        multicast.invoke { listener in
            listener.heard("outer")
            guard nested == 0 else { return }
            nested += 1
            // A change, then dispatches on this and on another multicast delegate from inside this one: the
            // thread's cached snapshot is replaced twice while the outer loop still walks the first one.
            multicast.add(late)
            multicast.invoke { $0.heard("inner") }
            other.invoke { $0.heard("other") }
        }
        #expect(log.all == ["first:outer", "first:inner", "second:inner", "late:inner", "late:other", "second:outer"])
        multicast.invoke { $0.heard("after") }
        #expect(log.all.suffix(3) == ["first:after", "second:after", "late:after"])
    }

    @Test("cancel() is idempotent")
    func cancelIdempotent() {
        let log = Log()
        let multicast = MulticastDelegate<any Listener>()
        let a = Recorder("a", log: log)
        let b = Recorder("b", log: log)
        let registration = multicast.add(a)
        multicast.add(b)
        registration.cancel()
        registration.cancel()
        #expect(!registration.isActive)
        #expect(multicast.count == 1)
        multicast.invoke { $0.heard("z") }
        #expect(log.all == ["b:z"])
        // Re-adding after cancel is a new registration.
        let again = multicast.add(a)
        #expect(again != registration)
        #expect(multicast.count == 2)
    }

    @Test("concurrent add, remove and dispatch (run under --sanitize=thread)")
    func concurrent() async {
        let log = Log()
        let multicast = MulticastDelegate<any Listener>()
        let keep = (0..<8).map { Recorder("k\($0)", log: log) }
        keep.forEach { multicast.add($0) }
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for round in 0..<300 {
                        let temporary = Recorder("t\(worker)-\(round)", log: log)
                        let registration = multicast.add(temporary)
                        multicast.invoke { $0.heard("w\(worker)") }
                        if round.isMultiple(of: 2) { registration.cancel() } else { multicast.remove(temporary) }
                        _ = multicast.count
                    }
                }
            }
        }
        #expect(multicast.count == 8)
        #expect(log.all.count >= 8 * 300 * 8)
    }
}
