import Foundation
import PizzaCore

/// The cost of announcing one call to each delegate: direct protocol calls, our `MulticastDelegate`, an array of
/// weak boxes as the seed articles write it, and `NotificationCenter`.
enum MulticastBench {
    protocol Kitchen: AnyObject {
        func orderChanged(_ id: Int)
    }

    // @unchecked: the benchmark calls every screen from its one thread only; NotificationCenter's block API
    // demands Sendable captures, and an atomic counter would add the same cost to every variant.
    final class Screen: Kitchen, @unchecked Sendable {
        var seen = 0
        func orderChanged(_ id: Int) { seen &+= id }
    }

    /// The seeds' version: `[Weak]` with `weak var value: AnyObject?`, recycled and cast on every call.
    final class SeedMulticast<T> {
        final class Weak {
            weak var value: AnyObject?
            init(_ value: AnyObject) { self.value = value }
        }
        private var delegates: [Weak] = []
        func add(_ delegate: T) { delegates.append(Weak(delegate as AnyObject)) }
        func update(_ body: (T) -> Void) {
            delegates.removeAll { $0.value == nil }
            for delegate in delegates { if let value = delegate.value as? T { body(value) } }
        }
    }

    struct Row {
        let delegates: Int
        let direct: Double
        let multicast: Double
        let seed: Double
        let notificationCenter: Double
    }

    /// Nanoseconds per delegate call for each way: the best of seven rounds, the ways taking turns within each
    /// round, so that a slow moment of the machine falls on all of them alike.
    static func measure(delegates count: Int) -> Row {
        let screens = (0..<count).map { _ in Screen() }
        let calls = max(200_000 / count, 2_000)
        func time(_ body: () -> Void) -> Double {
            let start = Bench.now()
            body()
            return Double(Bench.now() - start) / Double(calls * count)
        }
        let direct: [any Kitchen] = screens
        let multicast = MulticastDelegate<any Kitchen>()
        screens.forEach { multicast.add($0) }
        let seed = SeedMulticast<any Kitchen>()
        screens.forEach { seed.add($0) }
        let center = NotificationCenter()
        let name = Notification.Name("orderChanged")
        let tokens = screens.map { screen in
            center.addObserver(forName: name, object: nil, queue: nil) { _ in screen.seen &+= 1 }
        }
        var directNs = Double.infinity
        var multicastNs = Double.infinity
        var seedNs = Double.infinity
        var centerNs = Double.infinity
        for _ in 0..<7 {
            directNs = min(directNs, time { for i in 0..<calls { for screen in direct { screen.orderChanged(i) } } })
            multicastNs = min(multicastNs, time { for i in 0..<calls { multicast.invoke { $0.orderChanged(i) } } })
            seedNs = min(seedNs, time { for i in 0..<calls { seed.update { $0.orderChanged(i) } } })
            centerNs = min(centerNs, time { for _ in 0..<calls { center.post(name: name, object: nil) } })
        }
        tokens.forEach { center.removeObserver($0) }
        withExtendedLifetime(screens) {}
        return Row(
            delegates: count, direct: directNs, multicast: multicastNs, seed: seedNs, notificationCenter: centerNs)
    }
}
