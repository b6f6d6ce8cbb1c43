import PizzaCore
import PizzaProtocol
import PizzaStorage
import PizzaWire

extension RPCDispatcher {
    /// `menu.setAvailable` and `report.*`: what belongs to the shop rather than to an order (CONTRACT sections
    /// 17-18).
    static func addShopMethods(to table: inout MethodTable, _ state: DaemonState) {
        table.add(.menuSetAvailable, .operator) { params, peer in
            try params.onlyKnown(["item", "available"])
            let item = try params.requiredString("item")
            guard let available = try params.bool("available") else {
                throw RPCError.invalidParams("available", "available is required", expected: "boolean")
            }
            let items = state.menu.itemNames
            guard items.contains(item) else {
                throw RPCError.validation(
                    "item", "'\(item)' is no kind, product or extra on the menu", allowed: items.sorted())
            }
            try await state.orders.setAvailable(item, available, by: peer.actor)
            return try AvailabilityAnswer(item: item, available: available).json
        }
        table.add(.reportX, .reader) { params, peer in
            try params.onlyKnown(["print"])
            let report = try state.store.xReport()
            if try params.bool("print") == true {
                // Paper is an operator's to spend, as order.print is.
                guard state.role(of: peer) >= .operator else {
                    throw RPCError(.permissionDenied, "printing a report needs the operators' group", data: nil)
                }
                guard let outbox = state.outbox, !outbox.reportPrinterNames.isEmpty else {
                    throw RPCError(
                        .validation, "no printer prints reports (reports: true under printers: in pizzad.yaml)",
                        data: ["field": "print"])
                }
                for name in outbox.reportPrinterNames {
                    guard let ticket = outbox.ticket(for: report, title: "X REPORT", printer: name) else { continue }
                    if let error = await outbox.print(ticket, on: name) {
                        throw RPCError(.storage, "printer \(name) did not print the X report: \(error)", data: nil)
                    }
                }
            }
            return try report.json
        }
        table.add(.reportZ, .operator) { params, peer in
            try params.onlyKnown(["ref"])
            return try await state.orders.closePeriod(ref: try params.string("ref"), by: peer.actor).json
        }
        table.add(.reportGet, .reader) { params, _ in
            try params.onlyKnown(["number"])
            let number = try params.requiredInt("number")
            guard let report = try state.store.zReport(number: number) else { throw ReportError.noSuchReport(number) }
            return try report.json
        }
        table.add(.reportList, .reader) { params, _ in
            try params.onlyKnown(["after", "limit"])
            let limit = try OrderQuery.checkedLimit(try params.int("limit") ?? 100)
            let reports = try state.store.zReports(after: try params.int("after") ?? 0, limit: Int(limit))
            return try ReportListAnswer(
                reports: reports, next: reports.count == Int(limit) ? reports.last?.number : nil
            ).json
        }
        table.add(.reportVerify, .reader) { params, _ in
            try params.onlyKnown(["number"])
            let number = try params.requiredInt("number")
            guard let result = try state.store.verifyReport(number: number) else {
                throw ReportError.noSuchReport(number)
            }
            return try ReportVerifyAnswer(number: number, ok: result.ok, firstDifference: result.firstDifference).json
        }
    }
}
