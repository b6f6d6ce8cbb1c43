import PizzaProtocol
import PizzaWire

/// A man page being written in mdoc(7), the language man-db and mandoc render: requests and escaped text.
struct ManualText {
    private(set) var source = ""

    /// A request line: `.Sh NAME`, `.It Fl -config Ar PATH`.
    mutating func request(_ line: String) { source += "." + line + "\n" }

    /// Running text, escaped so that no line starts a request and a backslash prints as itself.
    mutating func text(_ paragraph: String) {
        for line in paragraph.split(separator: "\n", omittingEmptySubsequences: false) {
            var escaped = line.replacingOccurrences(of: "\\", with: "\\e")
            if escaped.hasPrefix(".") || escaped.hasPrefix("'") { escaped = "\\&" + escaped }
            source += escaped.isEmpty ? ".Pp\n" : escaped + "\n"
        }
    }

    /// A section heading.
    mutating func section(_ title: String) { request("Sh \(title)") }

    /// A tagged list, one `(tag request, text)` pair an item; each line of an item's text starts a line.
    mutating func list(_ items: [(tag: String, text: String)]) {
        request("Bl -tag -width Ds")
        for item in items {
            request("It \(item.tag)")
            for (index, line) in item.text.split(separator: "\n").enumerated() {
                if index > 0 { request("br") }
                text(String(line))
            }
        }
        request("El")
    }

    /// The page's prologue: date, title, section, name and one-line description.
    static func page(name: String, section: Int, date: String, description: String) -> ManualText {
        var page = ManualText()
        page.request("Dd \(date)")
        page.request("Dt \(name.uppercased()) \(section)")
        page.request("Os pizzad \(PizzadVersion.current)")
        page.section("NAME")
        page.request("Nm \(name)")
        page.request("Nd \(description)")
        return page
    }
}
