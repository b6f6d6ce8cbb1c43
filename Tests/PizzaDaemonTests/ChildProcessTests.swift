import DaemonHarness
import Foundation
import PizzaTesting
import Testing

@Suite("The harness's child processes", .offThePool)
struct ChildProcessTests {
    @Test("a program started through ChildProcess inherits none of the tests' descriptors, such as an open pipe")
    func inheritsNothing() throws {
        // Open here as other tests' output pipes are while a server is started (Foundation's are not close-on-exec).
        let pipe = Pipe()
        defer {
            try? pipe.fileHandleForReading.close()
            try? pipe.fileHandleForWriting.close()
        }
        let ends = [pipe.fileHandleForReading.fileDescriptor, pipe.fileHandleForWriting.fileDescriptor]
        let listed = try ChildProcess.run("/bin/sh", ["-c", "ls /proc/$$/fd"])
        #expect(listed.status == 0, "\(listed)")
        let inherited = Set(listed.output.split(whereSeparator: \.isNewline).compactMap { Int32($0) })
        #expect(inherited.contains(1), "\(listed.output)")
        #expect(inherited.isDisjoint(with: ends), "the child holds \(ends) of this process: \(listed.output)")
    }
}
