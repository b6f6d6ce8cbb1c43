import ArgumentParser
import PizzaCore
import PizzaProtocol
import PizzaWire

/// `pizzactl report`: closing the day (CONTRACT section 18).
struct ReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report", abstract: "The day's figures: X (so far), Z (close the day), and the Zs kept.",
        subcommands: [X.self, Z.self, Show.self, List.self, Verify.self])

    struct X: AsyncParsableCommand, PizzactlCommand {
        static let configuration = CommandConfiguration(
            commandName: "x", abstract: "The figures since the last Z report, closing nothing.",
            discussion: GlobalOptions.help)
        @ParentCommand var pizzactl: Pizzactl
        @Flag(help: "Print it on the printers with reports: true as well.") var print = false

        func run() async throws {
            let currency = try await ReportCommand.currency(global)
            let params: [(String, JSONValue)] = print ? [("print", .bool(true))] : []
            try await global.call(.reportX, params, as: ZReport.self) { report in
                ReportCommand.show(report, title: "X report (so far; the next Z is number \(report.number))", currency)
            }
        }
    }

    struct Z: AsyncParsableCommand, PizzactlCommand {
        static let configuration = CommandConfiguration(
            commandName: "z", abstract: "Close the day: the next Z report, numbered, kept and never changed.",
            discussion: GlobalOptions.help)
        @ParentCommand var pizzactl: Pizzactl
        @Option(help: "A reference for this close: run again with the same one, it closes nothing more.")
        var ref: String?

        func run() async throws {
            let currency = try await ReportCommand.currency(global)
            let params: [(String, JSONValue)] = ref.map { [("ref", .string($0))] } ?? []
            try await global.call(.reportZ, params, as: ZReport.self) { report in
                ReportCommand.show(report, title: "Z report \(report.number)", currency)
            }
        }
    }

    struct Show: AsyncParsableCommand, PizzactlCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Show Z report N; with --csv, a line per order and VAT rate for a spreadsheet.",
            discussion: GlobalOptions.help)
        @ParentCommand var pizzactl: Pizzactl
        @Argument(help: "The report's number.") var number: Int64
        @Flag(help: "A line per order and rate (a cancellation of an earlier order as a negative line), as CSV.")
        var csv = false

        func run() async throws {
            let params: [(String, JSONValue)] = [("number", .int(number))]
            guard csv else {
                let currency = try await ReportCommand.currency(global)
                try await global.call(.reportGet, params, as: ZReport.self) { report in
                    ReportCommand.show(report, title: "Z report \(report.number)", currency)
                }
                return
            }
            let report = try await global.withDaemon { try ZReport(json: try await $0.call(.reportGet, params)) }
            let lines = try await ReportCommand.lines(of: report, global)
            Swift.print(ReportCSV.text(report: report, lines: lines), terminator: "")
        }
    }

    struct List: AsyncParsableCommand, PizzactlCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List the Z reports, oldest first.", discussion: GlobalOptions.help)
        @ParentCommand var pizzactl: Pizzactl
        @Option(help: "Only reports after this number.") var after: Int64?
        @Option(help: "At most this many (1 to 1000).") var limit: Int = 100

        func validate() throws {
            guard (1...1000).contains(limit) else { throw ValidationError("--limit must be from 1 to 1000") }
        }

        func run() async throws {
            var params: [(String, JSONValue)] = [("limit", .int(Int64(limit)))]
            if let after { params.append(("after", .int(after))) }
            let currency = try await ReportCommand.currency(global)
            try await global.call(.reportList, params, as: ReportListAnswer.self) { list in
                Output.table(
                    ["Z", "CLOSED", "ENTRIES", "PLACED", "CANCELLED", "GROSS", "VAT", "TAKEN", "OWED"],
                    list.reports.map { report in
                        [
                            String(report.number), Output.time(report.at), "\(report.firstSeq)-\(report.lastSeq)",
                            String(report.placed.count), String(report.cancelled.count),
                            Output.money(report.gross, currency),
                            Output.money(report.taxes.reduce(0) { $0 &+ $1.tax }, currency),
                            Output.money(report.tenders.reduce(0) { $0 &+ $1.payments &- $1.refunds }, currency),
                            Output.money(report.openBalance, currency),
                        ]
                    }, right: [0, 3, 4, 5, 6, 7, 8])
                if list.reports.isEmpty { Swift.print("No Z report yet: pizzactl report z closes the day.") }
            }
        }
    }

    struct Verify: AsyncParsableCommand, PizzactlCommand {
        static let configuration = CommandConfiguration(
            commandName: "verify",
            abstract: "Recompute Z report N from the audit log; exit 1 naming the first figure that differs.",
            discussion: GlobalOptions.help)
        @ParentCommand var pizzactl: Pizzactl
        @Argument(help: "The report's number.") var number: Int64

        func run() async throws {
            let result = try await global.answer(.reportVerify, [("number", .int(number))], as: ReportVerifyAnswer.self)
            guard result.ok else {
                throw CommandFailure(
                    message: "Z report \(number) does not verify: \(Output.safe(result.firstDifference ?? "-"))")
            }
            if !global.json { Swift.print("Z report \(number) ok: its figures are what its audit entries make") }
        }
    }

    /// The shop's currency, for the amounts.
    static func currency(_ global: GlobalOptions) async throws -> String? {
        guard !global.json else { return nil }
        return try await global.withDaemon { try MenuAnswer(json: try await $0.call(.menu)) }.currency
    }

    /// The report as a person reads it: counts, VAT per rate, tenders, channels, what is owed.
    static func show(_ report: ZReport, title: String, _ currency: String?) {
        func money(_ cents: Int64) -> String { Output.money(cents, currency) }
        print("\(title), \(Output.time(report.at)), audit entries \(report.firstSeq) to \(report.lastSeq)")
        print(
            "Placed: \(report.placed.count) (\(money(report.placed.gross)))  "
                + "Cancelled: \(report.cancelled.count) (\(money(report.cancelled.gross)))")
        Output.table(
            ["VAT RATE", "%", "GROSS", "NET", "VAT"],
            report.taxes.map { tax in
                [tax.rate, String(Double(tax.basisPoints) / 100), money(tax.gross), money(tax.net), money(tax.tax)]
            }
                + [
                    [
                        "total", "", money(report.gross), money(report.taxes.reduce(0) { $0 &+ $1.net }),
                        money(report.taxes.reduce(0) { $0 &+ $1.tax }),
                    ]
                ], right: [1, 2, 3, 4])
        print("Discounts: \(money(report.discounts))  Fees: \(money(report.fees))")
        Output.table(
            ["TENDER", "PAYMENTS", "REFUNDS", "NET"],
            report.tenders.map { line in
                [line.tender, money(line.payments), money(line.refunds), money(line.payments &- line.refunds)]
            }, right: [1, 2, 3])
        Output.table(
            ["CHANNEL", "SOLD", "TAKEN"],
            report.channels.map { [Output.safe($0.channel), money($0.gross), money($0.payments)] }, right: [1, 2])
        print("Open balance (still owed, less overpaid): \(money(report.openBalance))")
    }

    /// The report's lines per order and rate, folded from its audit entries as the daemon folds them.
    static func lines(of report: ZReport, _ global: GlobalOptions) async throws -> [ReportFigures.Line] {
        var figures = ReportFigures(keepingLines: true)
        var cursor = report.firstSeq - 1
        try await global.withDaemon { client in
            while cursor < report.lastSeq {
                let page = try AuditListAnswer(
                    json: try await client.call(.auditList, [("after", .int(cursor)), ("limit", .int(1000))]))
                if page.entries.isEmpty { break }
                for entry in page.entries where entry.seq <= report.lastSeq {
                    cursor = entry.seq
                    guard entry.order != nil else { continue }
                    figures.add(before: try entry.before.map { try Cart(wire: $0) }, after: try Cart(wire: entry.after))
                }
                if page.entries.last.map({ $0.seq >= report.lastSeq }) ?? true { break }
            }
        }
        let folded = figures.report(
            number: report.number, at: report.at, firstSeq: report.firstSeq, lastSeq: report.lastSeq,
            previousBalance: 0)
        if folded.taxes != report.taxes {
            throw CommandFailure(
                message:
                    "the audit entries of Z report \(report.number) do not add up to it: pizzactl report verify \(report.number)"
            )
        }
        return figures.lines
    }
}

/// A Z report's CSV: a header, then a line per order and VAT rate (amounts in the currency's units, a point for the
/// decimals, so that any spreadsheet reads them as numbers).
enum ReportCSV {
    static func text(report: ZReport, lines: [ReportFigures.Line]) -> String {
        var text = "report,closed_at,order,channel,rate,vat_percent,gross,net,vat\r\n"
        for line in lines {
            let fields = [
                String(report.number), report.at, String(line.order), quoted(line.channel), quoted(line.rate.name),
                percent(line.rate.basisPoints), amount(line.gross), amount(line.gross &- line.tax), amount(line.tax),
            ]
            text += fields.joined(separator: ",") + "\r\n"
        }
        return text
    }

    /// RFC 4180: a field with a comma, quote or line break in quotes, its quotes doubled; one starting with `=`, `+`,
    /// `-` or `@` (a formula to a spreadsheet) after a `'`.
    static func quoted(_ field: String) -> String {
        var field = field
        if let first = field.first, "=+-@".contains(first) { field = "'" + field }
        guard field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return field }
        return "\"" + field.replacing("\"", with: "\"\"") + "\""
    }

    static func amount(_ cents: Int64) -> String {
        let sign = cents < 0 ? "-" : ""
        let fraction = cents.magnitude % 100
        return "\(sign)\(cents.magnitude / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }

    static func percent(_ basisPoints: Int64) -> String {
        let fraction = basisPoints % 100
        return "\(basisPoints / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}
