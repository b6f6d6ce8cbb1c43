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

    @Test("counts and create: a --pizzad that is not a program")
    func pizzad() throws {
        for command in ["counts", "create"] {
            let missing = try ChildProcess.run(pizzabench, [command, "--pizzad", "/nowhere/pizzad"], timeout: 30)
            #expect(missing.status == 64, "\(command)")
            #expect(missing.output.contains("--pizzad /nowhere/pizzad: no executable there"), "\(command)")
        }
    }
}
