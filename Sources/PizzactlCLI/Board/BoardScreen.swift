import FoundationEssentials
import Glibc
import PizzaCore
import PizzaProtocol
import PizzaWire

/// Draws the board as one frame of text with ANSI colours: columns by status on a wide terminal (100 columns or
/// more), a list grouped by status on a narrow one; a ticket yellow past its warn mark, red past its late mark,
/// the selected one in reverse video.
@MainActor
enum BoardScreen {
    static let wide = 100
    private static let reset = "\u{1b}[0m"
    private static let bold = "\u{1b}[1m"
    private static let reverse = "\u{1b}[7m"
    private static let yellow = "\u{1b}[30;43m"
    private static let red = "\u{1b}[97;41m"
    private static let dim = "\u{1b}[2m"

    static func frame(_ model: BoardModel, rows: Int, columns: Int, now: Double) -> String {
        var lines: [String] = []
        let state = model.connected ? "live" : "\u{1b}[97;41m \(model.status) \(reset)"
        let printers = model.printerProblems.map { "  \(red) printer \($0) \(reset)" }.joined()
        let off =
            model.unavailable.isEmpty
            ? "" : "  \(red) 86: \(model.unavailable.sorted().map(Output.safe).joined(separator: ", ")) \(reset)"
        lines.append(
            fit("\(bold)pizzad board\(reset)  \(state)\(printers)\(off)  all day: \(model.allDay)", columns))
        if model.showingRecall {
            lines.append(bold + "RECALL: the last tickets bumped out (r: back to the board)" + reset)
            for order in model.recall {
                lines.append(fit("  " + line(order, model: model, now: now), columns))
            }
            if model.recall.isEmpty { lines.append("  nothing bumped out yet") }
        } else if columns >= wide {
            lines += grid(model, rows: rows - 3, columns: columns, now: now)
        } else {
            lines += list(model, rows: rows - 3, columns: columns, now: now)
        }
        while lines.count < rows - 2 { lines.append("") }
        lines = Array(lines.prefix(rows - 2))
        let prompt = model.cancelling.map { "cancel #\($0.id): reason? \($0.reason)▏ (Enter cancels it, Esc keeps it)" }
        lines.append(fit(prompt ?? model.status, columns))
        lines.append(fit(dim + "←→↑↓ move  Enter/b bump  c cancel  r recall  q quit" + reset, columns))
        return "\u{1b}[H" + lines.map { $0 + "\u{1b}[K" }.joined(separator: "\r\n") + "\u{1b}[J"
    }

    private static func grid(_ model: BoardModel, rows: Int, columns: Int, now: Double) -> [String] {
        let width = (columns - (BoardModel.columns.count - 1)) / BoardModel.columns.count
        var cells: [[(text: String, style: String)]] = []
        for (index, status) in BoardModel.columns.enumerated() {
            let tickets = model.tickets(in: index)
            var cell: [(String, String)] = [("\(status.rawValue.uppercased()) (\(tickets.count))", bold)]
            for (position, order) in tickets.enumerated() {
                let style =
                    index == model.column && position == model.row ? reverse : colour(order, model: model, now: now)
                for text in card(order, model: model, now: now, width: width) { cell.append((text, style)) }
                cell.append(("", ""))
            }
            cells.append(cell)
        }
        let height = min(rows, cells.map(\.count).max() ?? 0)
        return (0..<height).map { line in
            cells.map { cell -> String in
                guard line < cell.count else { return String(repeating: " ", count: width) }
                let (text, style) = cell[line]
                let padded = pad(text, width)
                return style.isEmpty ? padded : style + padded + reset
            }.joined(separator: " ")
        }
    }

    private static func list(_ model: BoardModel, rows: Int, columns: Int, now: Double) -> [String] {
        var lines: [String] = []
        for (index, status) in BoardModel.columns.enumerated() {
            let tickets = model.tickets(in: index)
            lines.append(bold + "\(status.rawValue.uppercased()) (\(tickets.count))" + reset)
            for (position, order) in tickets.enumerated() {
                let style =
                    index == model.column && position == model.row ? reverse : colour(order, model: model, now: now)
                let text = pad(" " + line(order, model: model, now: now), columns)
                lines.append(style.isEmpty ? text : style + text + reset)
            }
        }
        return lines
    }

    /// A ticket on a column: id, customer and age; since placed; the pizzas; the note.
    private static func card(_ order: Cart, model: BoardModel, now: Double, width: Int) -> [String] {
        let age = minutes(now - BoardModel.entered(order))
        let head = "#\(order.id) " + customer(order, model)
        var lines = [pad(head, width - age.count - 1) + " " + age]
        lines.append(" " + minutes(now - BoardModel.placed(order)) + " since placed")
        if let fulfilment = BoardModel.fulfilment(order, now: now) { lines.append(" " + fulfilment) }
        lines += wrap(BoardModel.items(order), width - 1).map { " " + $0 }
        if let note = order.note { lines.append(" “" + Output.safe(note) + "”") }
        return lines.map { pad($0, width) }
    }

    /// A ticket on one line: the narrow list and the recall.
    private static func line(_ order: Cart, model: BoardModel, now: Double) -> String {
        var text = "#\(order.id) \(customer(order, model))  "
        if BoardModel.columns.contains(order.status) {
            text += minutes(now - BoardModel.entered(order)) + " (" + minutes(now - BoardModel.placed(order)) + ")  "
            if let fulfilment = BoardModel.fulfilment(order, now: now) { text += fulfilment + "  " }
        } else {
            text += order.status.rawValue + "  "
        }
        text += BoardModel.items(order)
        if let note = order.note { text += "  “\(Output.safe(note))”" }
        return text
    }

    private static func customer(_ order: Cart, _ model: BoardModel) -> String {
        model.showCustomer ? order.customer.map(Output.safe) ?? "" : ""
    }

    private static func colour(_ order: Cart, model: BoardModel, now: Double) -> String {
        guard let marks = model.thresholds[order.status] else { return "" }
        let waited = now - BoardModel.entered(order)
        return waited >= marks.late ? red : waited >= marks.warn ? yellow : ""
    }

    static func minutes(_ seconds: Double) -> String {
        let whole = max(0, Int(seconds))
        return "\(whole / 60):" + (whole % 60 < 10 ? "0" : "") + "\(whole % 60)"
    }

    /// `text` cut or padded to `width` characters.
    static func pad(_ text: String, _ width: Int) -> String {
        guard width > 0 else { return "" }
        if text.count > width { return String(text.prefix(max(0, width - 1))) + "…" }
        return text + String(repeating: " ", count: width - text.count)
    }

    /// A line that may hold colour codes, cut to `width` visible characters (roughly: the codes count too).
    private static func fit(_ text: String, _ width: Int) -> String {
        var visible = 0
        var result = ""
        var inCode = false
        for character in text {
            if character == "\u{1b}" { inCode = true }
            if !inCode {
                if visible >= width { break }
                visible += 1
            }
            result.append(character)
            if inCode, character.isLetter { inCode = false }
        }
        return result + reset
    }

    private static func wrap(_ text: String, _ width: Int) -> [String] {
        guard width > 4 else { return [text] }
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ") {
            if !current.isEmpty, current.count + 1 + word.count > width {
                lines.append(current)
                current = ""
            }
            current += (current.isEmpty ? "" : " ") + word
        }
        if !current.isEmpty { lines.append(current) }
        return Array(lines.prefix(3))
    }
}
