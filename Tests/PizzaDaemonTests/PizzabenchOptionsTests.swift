import DaemonHarness
import Foundation
import PizzaTesting
import Testing

/// pizzabench's options are checked before any load starts: a bad one is named and nothing runs.
@Suite("pizzabench refuses bad options by name")
struct PizzabenchOptionsTests {
    let pizzabench = BuiltPrograms.directory + "/pizzabench"

    @Test("counts: a --before that is not a program, and windows or rounds of zero")
    func counts() throws {
        let missing = try ChildProcess.run(pizzabench, ["counts", "--before", "/nowhere/pizzad"], timeout: 30)
        #expect(missing.status == 64)
        #expect(missing.output.contains("--before /nowhere/pizzad: no executable there"))
        for option in ["--window", "--rounds"] {
            let zero = try ChildProcess.run(pizzabench, ["counts", option, "0"], timeout: 30)
            #expect(zero.status == 64, "\(option) 0")
            #expect(zero.output.contains("--window and --rounds are above 0"), "\(option) 0")
        }
    }

    @Test(
        "instructions: a --before that is not a program, a window of zero, a client count of zero, a negative top, an order not made"
    )
    func instructions() throws {
        let missing = try ChildProcess.run(pizzabench, ["instructions", "--before", "/nowhere/pizzad"], timeout: 30)
        #expect(missing.status == 64)
        #expect(missing.output.contains("--before /nowhere/pizzad: no executable there"))
        for arguments in [["--window", "0"], ["--top=-1"]] {
            let refused = try ChildProcess.run(pizzabench, ["instructions"] + arguments, timeout: 30)
            #expect(refused.status == 64, "\(arguments)")
            #expect(refused.output.contains("--window is above 0 and --top not below 0"), "\(arguments)")
        }
        let clients = try ChildProcess.run(pizzabench, ["instructions", "--clients", "1,0"], timeout: 30)
        #expect(clients.status == 64)
        #expect(clients.output.contains("client counts are numbers above 0 separated by commas, not '1,0'"))
        let order = try ChildProcess.run(pizzabench, ["instructions", "--order", "pizza"], timeout: 30)
        #expect(order.status == 64)
        #expect(order.output.contains("The value 'pizza' is invalid for '--order <order>'"), "\(order.output)")
        #expect(order.output.contains("'two-pizzas', 'realistic' or 'paid'"), "\(order.output)")
    }

    @Test("nio-floor: a negative commit, and a socket path a Unix socket cannot have")
    func floor() throws {
        let negative = try ChildProcess.run(
            pizzabench, ["nio-floor", "--socket", "/tmp/floor.sock", "--commit-micros=-1"], timeout: 30)
        #expect(negative.status == 64)
        #expect(negative.output.contains("--commit-micros is 0 or more, not -1"))
        let long = try ChildProcess.run(
            pizzabench, ["nio-floor", "--socket", "/tmp/" + String(repeating: "s", count: 120)], timeout: 30)
        #expect(long.status == 64)
        #expect(long.output.contains("--socket needs a path of 1 to 107 bytes"))
    }

    @Test("counts, instructions and create: a --pizzad that is not a program")
    func pizzad() throws {
        for command in ["counts", "instructions", "create"] {
            let missing = try ChildProcess.run(pizzabench, [command, "--pizzad", "/nowhere/pizzad"], timeout: 30)
            #expect(missing.status == 64, "\(command)")
            #expect(missing.output.contains("--pizzad /nowhere/pizzad: no executable there"), "\(command)")
        }
    }
}
