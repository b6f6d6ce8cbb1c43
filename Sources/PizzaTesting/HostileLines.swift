/// Request lines as a hostile or broken client sends them, for tests and the full crash run.
public enum HostileLines {
    /// Line `index` of a hostile stream: a valid `order.create` request, or one with bytes flipped, cut short,
    /// doubled on one line, or replaced by noise. Always one line, newline-terminated.
    public static func line(_ index: Int, using random: inout some RandomNumberGenerator) -> [UInt8] {
        let valid = Array(
            #"{"jsonrpc":"2.0","id":\#(index),"method":"order.create","params":{"items":[{"kind":"cheese","size":"L"}]}}"#
                .utf8)
        var line: [UInt8]
        switch index % 5 {
        case 0:
            line = valid
            for _ in 0..<3 {
                line[Int.random(in: 0..<line.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
        case 1: line = Array(valid.prefix(Int.random(in: 0..<valid.count, using: &random)))
        case 2: line = valid + valid
        case 3:
            line = (0..<Int.random(in: 1...300, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
        default: line = valid
        }
        return line.map { $0 == UInt8(ascii: "\n") ? UInt8(ascii: " ") : $0 } + [UInt8(ascii: "\n")]
    }
}
