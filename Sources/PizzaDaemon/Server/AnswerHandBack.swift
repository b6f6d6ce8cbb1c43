import Locking
import NIOCore
import PizzaCore

/// Takes the writer's outcomes for the connections of one event loop and hands them to that loop in groups: the
/// first outcome queued schedules one task on the loop, and every outcome queued before it runs goes with it. A
/// group commit's changes for one loop so cost one task, not one each (a closure, an entry in SwiftNIO's task
/// queue, and a pass through the loop's task lock); the socket bound hands its answers back the same way, one
/// `eventfd` write a loop a commit.
///
/// A connection runs one change at a time, so a group holds at most one outcome a connection, and a connection's
/// answers stay in its requests' order. An outcome queued on the loop itself (a change refused before it reached
/// the writer) is answered by the next task, after the `processNext` that submitted it, as before.
final class AnswerHandBack: Sendable {
    /// A connection waiting for its change's outcome: its handler and context, used only on the loop.
    typealias Connection = NIOLoopBound<(ConnectionHandler, ChannelHandlerContext)>
    typealias Outcome = Result<OrderOutcome, any Error>

    private struct Queue {
        var outcomes: [(Connection, Outcome)] = []
        /// A task to answer `outcomes` is on the loop's queue and has not taken them yet.
        var scheduled = false
    }

    private let eventLoop: any EventLoop
    private let queue = Locked(Queue())
    /// The array the last group was answered from, kept with its capacity; only ever touched on the loop.
    private let spare: NIOLoopBoundBox<[(Connection, Outcome)]>

    init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
        spare = .makeBoxSendingValue([], eventLoop: eventLoop)
    }

    /// Queues `outcome` for `connection`, from any thread; schedules the loop's task when none is waiting.
    func deliver(_ outcome: Outcome, to connection: Connection) {
        let schedule = queue.withLock { queue in
            queue.outcomes.append((connection, outcome))
            defer { queue.scheduled = true }
            return !queue.scheduled
        }
        if schedule { eventLoop.execute { self.answerQueued() } }
    }

    /// On the loop: takes every outcome queued so far and has each connection answer its change.
    private func answerQueued() {
        var outcomes = spare.value
        spare.value = []
        queue.withLock { queue in
            swap(&queue.outcomes, &outcomes)
            queue.scheduled = false
        }
        for (connection, outcome) in outcomes {
            let (handler, context) = connection.value
            handler.finishChange(outcome, context: context)
        }
        outcomes.removeAll(keepingCapacity: true)
        spare.value = outcomes
    }
}

/// One ``AnswerHandBack`` for each event loop of a group, made once when the socket is bound.
struct AnswerHandBacks: Sendable {
    private let byLoop: [ObjectIdentifier: AnswerHandBack]

    init(group: any EventLoopGroup) {
        var byLoop: [ObjectIdentifier: AnswerHandBack] = [:]
        for loop in group.makeIterator() {
            byLoop[ObjectIdentifier(loop)] = AnswerHandBack(eventLoop: loop)
        }
        self.byLoop = byLoop
    }

    /// The hand-back of `eventLoop`, which must be one of the group's.
    func of(_ eventLoop: any EventLoop) -> AnswerHandBack {
        guard let handBack = byLoop[ObjectIdentifier(eventLoop)] else {
            preconditionFailure("an event loop that is not the control socket's group's")
        }
        return handBack
    }
}
