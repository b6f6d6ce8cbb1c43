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

    @Test("counts and create: a --pizzad that is not a program")
    func pizzad() throws {
        for command in ["counts", "create"] {
            let missing = try ChildProcess.run(pizzabench, [command, "--pizzad", "/nowhere/pizzad"], timeout: 30)
            #expect(missing.status == 64, "\(command)")
            #expect(missing.output.contains("--pizzad /nowhere/pizzad: no executable there"), "\(command)")
        }
    }
}
