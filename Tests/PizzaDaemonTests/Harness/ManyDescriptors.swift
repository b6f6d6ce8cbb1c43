/// Lets one test at a time hold many file descriptors in the test process.
///
/// Foundation's `Process.run()` on Linux (swift-corelibs-foundation before PR #5472, which includes Swift 6.3.1)
/// reads `/proc/self/fd` and copies 256 bytes of each entry's name. Its read buffer holds about 1,360 entries. With
/// more descriptors open, the last entry sits at the buffer's end, and the copy can run into an unmapped page: a
/// SIGSEGV in whichever test happens to start a process then (a fresh-clone run crashed so, while both
/// 1,000-connection tests ran). One such test at a time keeps the test process well under that.
actor ManyDescriptors {
    static let shared = ManyDescriptors()

    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func acquire() async {
        if !busy {
            busy = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func release() {
        if waiting.isEmpty {
            busy = false
        } else {
            waiting.removeFirst().resume()
        }
    }
}

/// Runs `body`, which opens many connections from the test process, while no other such test runs.
func withManyDescriptors<T>(_ body: () async throws -> T) async throws -> T {
    await ManyDescriptors.shared.acquire()
    do {
        let result = try await body()
        await ManyDescriptors.shared.release()
        return result
    } catch {
        await ManyDescriptors.shared.release()
        throw error
    }
}
