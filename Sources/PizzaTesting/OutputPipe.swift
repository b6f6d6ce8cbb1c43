import CSystemShims
public import Foundation
import PizzaCore

/// A child's output, gathered as it comes by a thread of its own with blocking reads.
///
/// Not `FileHandle.readabilityHandler`: that arms a libdispatch read source per pipe, and libdispatch's epoll
/// bookkeeping on Linux is freed under its manager thread when such sources are set up and torn down from many threads
/// at once (swift-corelibs-libdispatch#949 and swift-corelibs-foundation#3276, both open). A CI run's test
/// process died so (SIGSEGV in libdispatch, a pointer read through a freed muxnote) while daemons started and stopped
/// around it. A thread that reads until the end of the pipe, then closes it, arms nothing.
public final class OutputPipe: Sendable {
    /// The write end, for the child's standard output (and error); this process's copy is closed once the child
    /// started, or could not be.
    private let writeEnd: FileHandle
    private let readEnd: Int32
    /// What was read, whether the output ended, and whether a thread reads it (which then owns the read end).
    private let gathered = Locked((data: Data(), ended: false, reading: false))

    /// A new pipe, both ends close-on-exec; throws when the process has no descriptors left.
    public init() throws {
        var ends: [Int32] = [-1, -1]
        // Close-on-exec: no other child inherits either end (one that kept the write end would hold the output open).
        guard pizzad_pipe_cloexec(&ends) == 0 else {
            throw HarnessError("pipe: \(String(cString: strerror(errno)))")
        }
        readEnd = ends[0]
        writeEnd = FileHandle(fileDescriptor: ends[1], closeOnDealloc: true)
    }

    /// Once the child has started (with `writeEnd` as its output): closes this process's write end, so that the
    /// output ends when the child's copies close, and starts reading. The reading thread closes the read end at the
    /// end of the output.
    private func started() {
        try? writeEnd.close()
        gathered.withLock { $0.reading = true }
        let descriptor = readEnd
        Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count > 0 {
                    gathered.withLock { $0.data.append(contentsOf: buffer[0..<count]) }
                } else if count < 0, errno == EINTR {
                    continue
                } else {
                    break
                }
            }
            close(descriptor)
            gathered.withLock { $0.ended = true }
        }.start()
    }

    /// Starts `process` (with no signal blocked: ``Foundation/Process/runWithCleanSignals()``) writing its standard
    /// output, and its standard error when `errors`, here, and reads it from then on; both ends are closed when it
    /// cannot be started.
    public func run(_ process: Process, errors: Bool) throws {
        process.standardOutput = writeEnd
        if errors { process.standardError = writeEnd }
        do {
            try process.runWithCleanSignals()
        } catch {
            abandon()
            throw error
        }
        started()
    }

    /// When the child could not be started: both ends closed, nothing read.
    private func abandon() {
        try? writeEnd.close()
        close(readEnd)
        gathered.withLock { $0.ended = true }
    }

    /// Never run: both ends closed here. (Once a thread reads, it holds this object until the output ends, and closes
    /// the read end itself; after ``abandon()`` both are closed already.)
    deinit {
        let (reading, ended) = gathered.withLock { ($0.reading, $0.ended) }
        if !reading, !ended {
            try? writeEnd.close()
            close(readEnd)
        }
    }

    /// What the child wrote so far, and whether its output has ended (then that is all of it).
    public var output: (data: Data, ended: Bool) { gathered.withLock { ($0.data, $0.ended) } }

    /// What the child wrote so far.
    public var data: Data { gathered.withLock { $0.data } }

    /// Whether the output has ended: everything the child wrote is in ``data``.
    public var ended: Bool { gathered.withLock { $0.ended } }
}
