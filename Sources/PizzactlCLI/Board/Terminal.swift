import Dispatch
import Glibc

/// The terminal a full-screen command draws on: raw keys in, the alternate screen out, and everything put back
/// as it was on the way out (also on Ctrl-C and SIGTERM).
final class Terminal: @unchecked Sendable {
    /// A key the board reacts to.
    enum Key: Sendable, Equatable {
        case up, down, left, right, enter, escape, backspace
        case character(Character)
    }

    private var original = termios()
    private var signals: [any DispatchSourceSignal] = []

    /// Whether both ends are a terminal.
    static var isInteractive: Bool { isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1 }

    /// Rows and columns now.
    var size: (rows: Int, columns: Int) {
        var window = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &window) == 0, window.ws_col > 0 else { return (24, 80) }
        return (Int(window.ws_row), Int(window.ws_col))
    }

    /// Switches to raw input and the alternate screen; `onResize` runs on each SIGWINCH, `onStop` on SIGINT or
    /// SIGTERM after the terminal is restored.
    func enter(onResize: @escaping @Sendable () -> Void, onStop: @escaping @Sendable () -> Void) {
        tcgetattr(STDIN_FILENO, &original)
        var raw = original
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | IEXTEN)
        raw.c_iflag &= ~tcflag_t(IXON | ICRNL)
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw)
        write("\u{1b}[?1049h\u{1b}[?25l\u{1b}[2J")
        for (number, action) in [(SIGWINCH, onResize), (SIGINT, onStop), (SIGTERM, onStop)] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .main)
            source.setEventHandler { [weak self] in
                if number != SIGWINCH { self?.leave() }
                action()
            }
            source.resume()
            signals.append(source)
        }
    }

    /// Puts the terminal back: the main screen, the cursor, line input.
    func leave() {
        write("\u{1b}[?25h\u{1b}[?1049l")
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &original)
    }

    func write(_ text: String) { Output.write(text, to: STDOUT_FILENO) }

    /// The keys typed, read on a queue of their own (its thread blocks in `read`).
    func keys() -> AsyncStream<Key> {
        AsyncStream { continuation in
            DispatchQueue(label: "pizzactl.keys").async {
                var pending: [UInt8] = []
                var byte: UInt8 = 0
                while true {
                    let count = read(STDIN_FILENO, &byte, 1)
                    // A signal (a resize) interrupts the read: read again; only the end of input ends the keys.
                    if count < 0 && errno == EINTR { continue }
                    if count != 1 { break }
                    pending.append(byte)
                    if pending == [0x1B] {
                        // Esc alone, or the start of an arrow key's sequence: which one shows within 50 ms.
                        var poller = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
                        if poll(&poller, 1, 50) <= 0 {
                            pending.removeAll()
                            continuation.yield(.escape)
                            continue
                        }
                    }
                    if let (key, used) = Self.decode(pending) {
                        pending.removeFirst(used)
                        continuation.yield(key)
                    } else if pending.count > 8 {
                        pending.removeAll()
                    }
                }
                continuation.finish()
            }
        }
    }

    /// The key at the start of `bytes` and how many bytes it took; nil while an escape sequence is incomplete.
    static func decode(_ bytes: [UInt8]) -> (Key, Int)? {
        guard let first = bytes.first else { return nil }
        switch first {
        case 0x0D, 0x0A: return (.enter, 1)
        case 0x7F, 0x08: return (.backspace, 1)
        case 0x1B:
            if bytes.count == 1 { return nil }
            guard bytes[1] == UInt8(ascii: "[") || bytes[1] == UInt8(ascii: "O") else { return (.escape, 1) }
            guard bytes.count >= 3 else { return nil }
            switch bytes[2] {
            case UInt8(ascii: "A"): return (.up, 3)
            case UInt8(ascii: "B"): return (.down, 3)
            case UInt8(ascii: "C"): return (.right, 3)
            case UInt8(ascii: "D"): return (.left, 3)
            default: return (.escape, 3)
            }
        default:
            // UTF-8: as many bytes as the first one says.
            let length = first < 0x80 ? 1 : first >= 0xF0 ? 4 : first >= 0xE0 ? 3 : 2
            guard bytes.count >= length else { return nil }
            let text = String(decoding: bytes[..<length], as: UTF8.self)
            return (.character(text.first ?? " "), length)
        }
    }
}
