import NIOCore
import NIOEmbedded
import PizzaAPI
import PizzaCore
import Testing

/// The fan-out in process, on a test event loop whose clock the test moves: every reader gets the same sealed batch,
/// each change once, in order, from the moment it subscribed; a reader that falls behind is dropped.
@Suite("One fan-out for every event reader")
struct EventFanOutTests {
    let actor = ChangeActor(uid: 1000, name: "cook", pid: 42)
    let now = Timestamp(millisecondsSince1970: 1_763_717_400_123)

    func change(_ seq: Int64, customer: String? = "Ann", note: String? = nil) -> OrderChange {
        let cart = Cart(
            id: seq, ref: nil, customer: customer, note: note, status: .open, items: [], currency: "EUR",
            createdAt: now, updatedAt: now, history: [StatusChange(from: nil, to: .open, at: now, actor: actor)])
        return OrderChange(sequence: seq, kind: .created, at: now, actor: actor, before: nil, after: cart)
    }

    /// A fan-out on a test loop whose clock the test moves, with `count` readers of a kitchen device.
    func kitchen(readers count: Int) -> (NIOAsyncTestingEventLoop, EventFanOut, [EventFanOut.Reader]) {
        let loop = NIOAsyncTestingEventLoop()
        let fanOut = EventFanOut(loop: loop)
        return (loop, fanOut, (0..<count).map { _ in fanOut.subscribe(device: "kitchen-1") })
    }

    /// The `id:` lines of `buffers`, in order.
    func ids(_ buffers: [ByteBuffer]?) -> [Int64] {
        (buffers ?? []).flatMap { buffer in
            String(buffer: buffer).split(separator: "\n").compactMap { line in
                line.hasPrefix("id: ") ? Int64(line.dropFirst(4)) : nil
            }
        }
    }

    @Test("a batch's events after a sequence number are a slice of its bytes; a comment is always whole")
    func slices() {
        var builder = EventBatch.Builder()
        for seq in Int64(5)...7 { builder.append(seq: seq, at: "t", kind: "created", order: "{\"id\":\(seq)}") }
        let batch = builder.seal()
        #expect(builder.isEmpty)
        #expect(batch.count == 3 && batch.firstSeq == 5 && batch.lastSeq == 7)
        #expect(ids(batch.after(0).map { [$0] }) == [5, 6, 7])
        #expect(ids(batch.after(5).map { [$0] }) == [6, 7])
        #expect(ids(batch.after(6).map { [$0] }) == [7])
        #expect(batch.after(7) == nil)
        #expect(batch.after(70) == nil)
        let whole = String(buffer: batch.bytes)
        #expect(whole.hasPrefix("id: 5\nevent: order\ndata: {\"seq\":5,\"at\":\"t\",\"kind\":\"created\",\"order\":"))
        #expect(String(buffer: batch.after(5)!) == String(whole[whole.range(of: "id: 6\n")!.lowerBound...]))
        let comment = EventBatch(comment: ": keep-alive\n\n")
        #expect(comment.after(Int64.max).map { String(buffer: $0) } == ": keep-alive\n\n")
    }

    @Test("every reader gets each change once, in commit order, from when it subscribed; names hidden where asked")
    func everyReader() async throws {
        let loop = NIOAsyncTestingEventLoop()
        let fanOut = EventFanOut(loop: loop)
        let early = fanOut.subscribe(device: "till-1")
        for seq in Int64(1)...3 { fanOut.repository(didCommit: change(seq), latency: .zero) }
        let late = fanOut.subscribe(device: "kitchen-1")
        let hidden = fanOut.subscribe(device: nil, hideCustomer: true)
        for seq in Int64(4)...5 { fanOut.repository(didCommit: change(seq), latency: .zero) }
        await loop.advanceTime(by: EventFanOut.gatherFor)
        #expect(ids(await early.next()) == [1, 2, 3, 4, 5])
        #expect(ids(await late.next()) == [4, 5])
        let shown = await hidden.next()
        #expect(ids(shown) == [4, 5])
        #expect(!(shown ?? []).contains { String(buffer: $0).contains("Ann") })
        // A replay that sent 6 and 7 already: the live batch's copy of them is left out.
        late.skip(through: 7)
        for seq in Int64(6)...8 { fanOut.repository(didCommit: change(seq), latency: .zero) }
        await loop.advanceTime(by: EventFanOut.gatherFor)
        #expect(ids(await early.next()) == [6, 7, 8])
        #expect(ids(await late.next()) == [8])
        fanOut.remove(early)
        #expect(await early.next() == nil)
        #expect(fanOut.count == 2)
        await loop.shutdownGracefully()
    }

    @Test("fifty readers are handed each batch in groups spread over the gathering time, each batch in order")
    func groups() async throws {
        let (loop, fanOut, readers) = kitchen(readers: 50)
        var seq: Int64 = 0
        for _ in 0..<3 {
            for _ in 0..<4 {
                seq += 1
                fanOut.repository(didCommit: change(seq), latency: .zero)
            }
            // Sealed: the first group of ten is handed the batch at once, the others within the next 25 ms.
            await loop.advanceTime(by: EventFanOut.gatherFor)
        }
        await loop.advanceTime(by: EventFanOut.gatherFor)
        for reader in readers { fanOut.remove(reader) }
        for reader in readers {
            var seen: [Int64] = []
            while let events = await reader.next() { seen += ids(events) }
            #expect(seen == Array(1...12))
        }
        await loop.shutdownGracefully()
    }

    @Test("when a batch is sealed the first ten of fifty readers are handed it at once, the others after")
    func spread() async throws {
        let (loop, fanOut, readers) = kitchen(readers: 50)
        fanOut.repository(didCommit: change(1), latency: .zero)
        await loop.advanceTime(by: EventFanOut.gatherFor)
        var handed = 0
        for reader in readers {
            reader.end()
            if await reader.next() != nil { handed += 1 }
        }
        #expect(handed == 10)
        await loop.advanceTime(by: .milliseconds(20))
        await loop.shutdownGracefully()
    }

    @Test("a reader that takes nothing past the allowance gets `dropped` with the last event it was handed, then ends")
    func slowReader() async throws {
        let loop = NIOAsyncTestingEventLoop()
        let fanOut = EventFanOut(loop: loop)
        let slow = fanOut.subscribe(device: "kitchen-1")
        let note = String(repeating: "x", count: 64 << 10)
        var seq: Int64 = 0
        // A batch at a time, each 640 KiB: the second is past the 1 MiB allowance.
        for _ in 0..<2 {
            for _ in 0..<10 {
                seq += 1
                fanOut.repository(didCommit: change(seq, note: note), latency: .zero)
            }
            await loop.advanceTime(by: EventFanOut.gatherFor)
        }
        #expect(fanOut.count == 0)
        let taken = try #require(await slow.next())
        #expect(ids(taken) == Array(1...10))
        #expect(String(buffer: taken.last!) == "event: dropped\ndata: {\"lastSeq\":10}\n\n")
        #expect(await slow.next() == nil)
        await loop.shutdownGracefully()
    }
}
