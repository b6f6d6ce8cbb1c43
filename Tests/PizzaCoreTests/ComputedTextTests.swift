import Dispatch
import PizzaCore
import Testing

@Suite("ComputedText")
struct ComputedTextTests {
    @Test("computed the first time and then shared: the later getters do not compute")
    func computedOnce() {
        let once = ComputedText()
        var made = 0
        #expect(
            once.get {
                made += 1
                return "first"
            } == "first")
        #expect(
            once.get {
                made += 1
                return "second"
            } == "first")
        #expect(made == 1)
    }

    @Test("threads asking at the same moment all get the value one of them published")
    func raced() {
        for _ in 0..<200 {
            let once = ComputedText()
            let seen = Locked<[String]>([])
            DispatchQueue.concurrentPerform(iterations: 8) { index in
                let value = once.get { String(repeating: "\(index)", count: 40) }
                seen.withLock { $0.append(value) }
            }
            let values = seen.value
            #expect(values.count == 8)
            #expect(Set(values).count == 1, "\(values)")
            #expect(once.get { "" } == values[0])
        }
    }
}
