extension JSONValue {
    /// The compact JSON text of the value (one line, no spaces).
    public var jsonText: String {
        var output: [UInt8] = []
        output.reserveCapacity(256)
        write(into: &output)
        return String(decoding: output, as: UTF8.self)
    }

    /// Indented JSON text for people (`pizzactl --json`).
    public var prettyText: String {
        var output: [UInt8] = []
        write(into: &output, indent: 0)
        return String(decoding: output, as: UTF8.self)
    }

    /// Appends the compact JSON text of the value to `output`.
    public func write(into output: inout [UInt8]) {
        switch self {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let value): output.append(contentsOf: (value ? "true" : "false").utf8)
        case .int(let value): output.append(contentsOf: String(value).utf8)
        case .double(let value):
            if value.isFinite {
                output.append(contentsOf: value.description.utf8)
            } else {
                output.append(contentsOf: "null".utf8)
            }
        case .string(let value): JSONWriter.appendString(value, to: &output)
        case .encoded(let text): output.append(contentsOf: text.utf8)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (offset, element) in elements.enumerated() {
                if offset > 0 { output.append(UInt8(ascii: ",")) }
                element.write(into: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            for (offset, (key, value)) in members.enumerated() {
                if offset > 0 { output.append(UInt8(ascii: ",")) }
                JSONWriter.appendString(key, to: &output)
                output.append(UInt8(ascii: ":"))
                value.write(into: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    private func write(into output: inout [UInt8], indent: Int) {
        let pad = { (level: Int, out: inout [UInt8]) in
            out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: level * 2))
        }
        switch self {
        case .array(let elements) where !elements.isEmpty:
            output.append(contentsOf: "[\n".utf8)
            for (offset, element) in elements.enumerated() {
                pad(indent + 1, &output)
                element.write(into: &output, indent: indent + 1)
                output.append(contentsOf: (offset < elements.count - 1 ? ",\n" : "\n").utf8)
            }
            pad(indent, &output)
            output.append(UInt8(ascii: "]"))
        case .object(let members) where !members.isEmpty:
            output.append(contentsOf: "{\n".utf8)
            for (offset, (key, value)) in members.enumerated() {
                pad(indent + 1, &output)
                JSONWriter.appendString(key, to: &output)
                output.append(contentsOf: ": ".utf8)
                value.write(into: &output, indent: indent + 1)
                output.append(contentsOf: (offset < members.count - 1 ? ",\n" : "\n").utf8)
            }
            pad(indent, &output)
            output.append(UInt8(ascii: "}"))
        default:
            write(into: &output)
        }
    }
}
