// hold-connections: a test helper that opens many connections to pizzad and holds them, so that the test process
// itself stays under Foundation's /proc/self/fd limit (see Sources/PizzaTesting/HeldConnections.swift).
//
//   hold-connections unix PATH COUNT [mixed]    connections to a Unix socket
//   hold-connections tcp PORT COUNT [FROM]      connections to 127.0.0.1:PORT, from the loopback address FROM
//
// With `mixed`, a third shut their sending side and a third send half a request line. It prints `ready N` once it
// has tried them all (N: how many connected; over TCP the server may refuse some) and holds them until its standard
// input closes, then exits (which closes them).
import CSystemShims
import Glibc

func say(_ text: String, to fd: Int32) {
    let bytes = Array(text.utf8)
    _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
}

func fail(_ message: String) -> Never {
    say("hold-connections: \(message)\n", to: 2)
    exit(1)
}

let arguments = CommandLine.arguments
guard arguments.count >= 4, let count = Int(arguments[3]), ["unix", "tcp"].contains(arguments[1]) else {
    fail("usage: hold-connections unix PATH COUNT [mixed] | tcp PORT COUNT [FROM]")
}
let mixed = arguments.count > 4 && arguments[4] == "mixed"
let from = arguments[1] == "tcp" && arguments.count > 4 ? arguments[4] : nil

var files = rlimit()
if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &files) == 0, files.rlim_cur < files.rlim_max {
    files.rlim_cur = files.rlim_max
    _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &files)
}

/// A connection to 127.0.0.1:`port` from `from` (any loopback address), or nil when the server refused it.
func connectTCP(port: UInt16, from: String?) -> Int32? {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { fail("socket: \(String(cString: strerror(errno)))") }
    if let from {
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr(from)
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else { fail("bind to \(from): \(String(cString: strerror(errno)))") }
    }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
    let result = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    guard result == 0 else {
        close(fd)
        return nil
    }
    return fd
}

func connectUnix(path: String) -> Int32 {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { fail("socket: \(String(cString: strerror(errno)))") }
    guard pizzad_connect_unix(fd, path) == 0 else { fail("connect to \(path): \(String(cString: strerror(errno)))") }
    return fd
}

var held: [Int32] = []
for index in 0..<count {
    let fd: Int32
    if arguments[1] == "tcp" {
        guard let port = UInt16(arguments[2]) else { fail("not a port: \(arguments[2])") }
        guard let connected = connectTCP(port: port, from: from) else { continue }
        fd = connected
    } else {
        fd = connectUnix(path: arguments[2])
    }
    if mixed, index % 3 == 0 { shutdown(fd, Int32(SHUT_WR)) }
    if mixed, index % 3 == 1 {
        let partial = Array(#"{"jsonrpc":"2.0","id":1,"meth"#.utf8)
        _ = partial.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }
    held.append(fd)
}
say("ready \(held.count)\n", to: 1)
var byte: UInt8 = 0
while read(0, &byte, 1) > 0 {}
exit(0)
