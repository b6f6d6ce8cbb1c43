import Foundation
import PizzaCore
import PizzaStorage
import PizzaTesting
import Testing

/// Closing the day (CONTRACT section 18): Z reports are a pure function of a range of the audit log.
@Suite("Z reports: the day's figures from the audit log")
struct ZReportTests {
    /// Three tills and a delivery platform, each a device; the channel a Z names.
    static let channels = ["till-1", "till-2", "till-3", "lieferdienst"].map {
        ChangeActor(uid: 0, name: "pizzad", pid: 1, device: $0, address: "192.0.2.7:5000")
    }

    @Test("a generated day of 300 orders: the Z equals an independent computation from the orders, to the cent")
    func generatedDay() async throws {
        let kitchen = try Kitchen()
        let repository = kitchen.repository
        var random = SeededRandom(seed: 0x2_0182)
        var orders: [Int64] = []
        for index in 0..<300 {
            let actor = Self.channels[index % Self.channels.count]
            orders.append(try await Generated.place(repository: repository, random: &random, actor: actor).id)
        }
        // Two orders cancelled after payment, each payment refunded.
        for id in orders.prefix(2) {
            let paid = try await repository.perform(
                .pay(.cash, amount: 500, ref: "late-\(id)", order: id), by: Self.channels[0])
            _ = try await repository.cancel(id, reason: "customer left", by: Self.channels[0])
            for payment in paid.cart.payments where payment.amount > 0 {
                _ = try await repository.perform(
                    .refund(payment: payment.id, amount: payment.amount, reason: "cancelled", order: id),
                    by: Self.channels[0])
            }
        }
        let z1 = try await kitchen.orders.closePeriod(ref: "day-1", by: Fixtures.actor)
        let carts = try orders.map { try repository.cart(id: $0) }
        let expected = Self.independent(carts, number: 1, firstSeq: 1, lastSeq: z1.lastSeq, at: z1.at)
        #expect(z1.firstDifference(from: expected) == nil, "\(z1.firstDifference(from: expected) ?? "")")
        #expect(z1.cancelled.count == 2 && z1.placed.count == 300)
        #expect(z1.tenders.contains { $0.tender == "cash" && $0.refunds >= 1000 })
        #expect(z1.channels.map(\.channel) == ["lieferdienst", "till-1", "till-2", "till-3"])
        #expect(try kitchen.store.verifyReport(number: 1)?.ok == true)
        // The same ref closes nothing more.
        let again = try await kitchen.orders.closePeriod(ref: "day-1", by: Fixtures.actor)
        #expect(again == z1)
        #expect(try Fixtures.sqlite3(kitchen.path, "SELECT count(*) FROM z_reports") == "1")

        // Day 2: an order booked on day 1 is cancelled (a negative line), and ten new ones.
        let late = orders[10]
        let before = try repository.cart(id: late)
        _ = try await repository.cancel(late, reason: "oven broke", by: Self.channels[1])
        var day2: [Int64] = []
        for index in 0..<10 {
            let actor = Self.channels[index % Self.channels.count]
            day2.append(try await Generated.place(repository: repository, random: &random, actor: actor).id)
        }
        let x = try kitchen.store.xReport()
        let z2 = try await kitchen.orders.closePeriod(ref: nil, by: Fixtures.actor)
        #expect(z2.number == 2 && z2.firstSeq == z1.lastSeq + 1 && x.number == 2)
        #expect(x.placed == z2.placed && x.taxes == z2.taxes && x.lastSeq == z2.lastSeq - 1)
        #expect(z2.cancelled.count == 1 && z2.cancelled.gross == before.total)
        var second = Self.independent(
            try day2.map { try repository.cart(id: $0) }, number: 2, firstSeq: z2.firstSeq, lastSeq: z2.lastSeq,
            at: z2.at)
        // The cancellation takes the order's own lines back, rate by rate.
        second.cancelled = ZReport.Count(count: 1, gross: before.total)
        for line in before.taxes {
            if let index = second.taxes.firstIndex(where: { $0.rate == line.rate.name }) {
                second.taxes[index].gross -= line.gross
                second.taxes[index].tax -= line.tax
                second.taxes[index].net -= line.net
            } else {
                second.taxes.append(
                    ZReport.Tax(
                        rate: line.rate.name, basisPoints: line.rate.basisPoints, gross: -line.gross, net: -line.net,
                        tax: -line.tax))
            }
        }
        second.taxes.sort { $0.rate < $1.rate }
        second.discounts -= before.discountTotal
        second.fees -= before.feeTotal
        let channel = ReportFigures.channel(of: before)
        if let index = second.channels.firstIndex(where: { $0.channel == channel }) {
            second.channels[index].gross -= before.total
        }
        second.openBalance = try (orders + day2).reduce(0) { $0 + (try repository.cart(id: $1)).balance }
        #expect(z2.firstDifference(from: second) == nil, "\(z2.firstDifference(from: second) ?? "")")
        #expect(try kitchen.store.verifyReport(number: 2)?.ok == true)
        #expect(try kitchen.store.verifyAudit().ok)
    }

    @Test("a payment edited with sqlite3 is named by report.verify and by audit verify")
    func editedPayment() async throws {
        let kitchen = try Kitchen()
        var random = SeededRandom(seed: 0x2_0183)
        var paid: Cart?
        while paid == nil {
            let cart = try await Generated.place(repository: kitchen.repository, random: &random, actor: Fixtures.actor)
            if !cart.payments.isEmpty { paid = cart }
        }
        let payment = try #require(paid?.payments.first)
        _ = try await kitchen.orders.closePeriod(ref: nil, by: Fixtures.actor)
        #expect(try kitchen.store.verifyReport(number: 1)?.ok == true)
        _ = try Fixtures.sqlite3(kitchen.path, "UPDATE payments SET amount = amount + 100 WHERE id = \(payment.id)")
        let verified = try #require(try kitchen.store.verifyReport(number: 1))
        #expect(!verified.ok)
        #expect(verified.firstDifference?.contains("payment \(payment.id) of order \(paid!.id)") == true, "\(verified)")
        let audit = try kitchen.store.verifyAudit()
        #expect(!audit.ok && audit.problem?.contains("payment \(payment.id)") == true, "\(audit)")
    }

    @Test("a Z report's row is append-only, and one edited past that is named by report.verify and audit verify")
    func editedReport() async throws {
        let kitchen = try Kitchen()
        var random = SeededRandom(seed: 0x2_0184)
        for _ in 0..<5 {
            _ = try await Generated.place(repository: kitchen.repository, random: &random, actor: Fixtures.actor)
        }
        let z = try await kitchen.orders.closePeriod(ref: nil, by: Fixtures.actor)
        // The row is append-only.
        let refused = try Fixtures.run([
            "sqlite3", kitchen.path, "UPDATE z_reports SET figures = '{}' WHERE number = 1",
        ])
        #expect(refused.status != 0 && refused.output.contains("z_reports is append-only"), "\(refused)")
        // Past the trigger (dropped, as someone with the file could): the row no longer matches its entry.
        let gross = z.placed.gross
        _ = try Fixtures.sqlite3(
            kitchen.path,
            """
            DROP TRIGGER z_reports_no_update;
            UPDATE z_reports SET figures = replace(figures, '"gross":\(gross)', '"gross":\(gross + 1)') WHERE number = 1;
            """)
        let verified = try #require(try kitchen.store.verifyReport(number: 1))
        #expect(!verified.ok && verified.firstDifference?.hasPrefix("placed.gross") == true, "\(verified)")
        #expect(try kitchen.store.verifyAudit().problem?.contains("Z report 1") == true)
    }

    @Test("Zs taken while orders are created cover every audit entry exactly once")
    func concurrentZs() async throws {
        let kitchen = try Kitchen()
        let repository = kitchen.repository
        let orders = kitchen.orders
        try await withThrowingTaskGroup(of: Void.self) { group in
            for client in 0..<4 {
                group.addTask {
                    for _ in 0..<60 {
                        _ = try await repository.create(
                            pizzas: [try Fixtures.factory.makePizza("cheese")], place: true, currency: "EUR",
                            by: Self.channels[client])
                    }
                }
            }
            group.addTask {
                for _ in 0..<12 {
                    _ = try await orders.closePeriod(ref: nil, by: Fixtures.actor)
                    try await Task.sleep(for: .milliseconds(5))
                }
            }
            try await group.waitForAll()
        }
        _ = try await orders.closePeriod(ref: nil, by: Fixtures.actor)
        let reports = try kitchen.store.zReports(limit: 1000)
        #expect(reports.count == 13)
        var next: Int64 = 1
        for report in reports {
            #expect(report.firstSeq == next, "report \(report.number) starts at \(report.firstSeq), not \(next)")
            next = report.lastSeq + 1
        }
        let entries = Int64(try Fixtures.sqlite3(kitchen.path, "SELECT max(seq) FROM audit_log")) ?? 0
        #expect(next == entries + 1)
        #expect(reports.reduce(0) { $0 + $1.placed.count } == 240)
        #expect(reports.reduce(0) { $0 + $1.gross } == 240 * Int64(try Fixtures.factory.makePizza("cheese").price))
        for report in reports { #expect(try kitchen.store.verifyReport(number: report.number)?.ok == true) }
    }

    @Test("a Z with no sales closes the day; the first Z numbers 1")
    func emptyDay() async throws {
        let kitchen = try Kitchen()
        let z = try await kitchen.orders.closePeriod(ref: nil, by: Fixtures.actor)
        #expect(z.number == 1 && z.firstSeq == 1 && z.lastSeq == 1 && z.placed.count == 0 && z.taxes.isEmpty)
        let entry = try Fixtures.sqlite3(
            kitchen.path, "SELECT action, order_id IS NULL, status_after IS NULL FROM audit_log")
        #expect(entry == "z_report|1|1")
        #expect(try kitchen.store.verifyAudit().ok)
        await #expect(throws: OrderError.self) { _ = try await kitchen.orders.closePeriod(ref: "", by: Fixtures.actor) }
    }

    /// The report computed from the orders' final state, as an accountant would from the order list: booked orders'
    /// taxes per rate, every payment and refund by tender, each order's channel, every order's balance.
    static func independent(_ carts: [Cart], number: Int64, firstSeq: Int64, lastSeq: Int64, at: String) -> ZReport {
        var placed = ZReport.Count()
        var cancelled = ZReport.Count()
        var taxes: [String: ZReport.Tax] = [:]
        var discounts: Int64 = 0
        var fees: Int64 = 0
        var tenders: [String: ZReport.TenderLine] = [:]
        var channels: [String: ZReport.Channel] = [:]
        var balance: Int64 = 0
        for cart in carts {
            let channel = cart.history.first?.actor.device ?? "socket:\(cart.history.first?.actor.name ?? "")"
            if cart.status != .open {
                var asPlaced = cart
                asPlaced.status = .placed
                placed.count += 1
                placed.gross += asPlaced.total
                if cart.status == .cancelled {
                    cancelled.count += 1
                    cancelled.gross += asPlaced.total
                }
            }
            if cart.status != .open && cart.status != .cancelled {
                for line in cart.taxes {
                    taxes[
                        line.rate.name,
                        default: ZReport.Tax(
                            rate: line.rate.name, basisPoints: line.rate.basisPoints, gross: 0, net: 0, tax: 0)
                    ].gross += line.gross
                    taxes[line.rate.name]!.net += line.net
                    taxes[line.rate.name]!.tax += line.tax
                }
                discounts += cart.discountTotal
                fees += cart.feeTotal
                channels[channel, default: ZReport.Channel(channel: channel, gross: 0, payments: 0)].gross += cart.total
            }
            for payment in cart.payments {
                var line =
                    tenders[payment.tender.rawValue]
                    ?? ZReport.TenderLine(tender: payment.tender.rawValue, payments: 0, refunds: 0)
                if payment.amount > 0 { line.payments += payment.amount } else { line.refunds -= payment.amount }
                tenders[payment.tender.rawValue] = line
                channels[channel, default: ZReport.Channel(channel: channel, gross: 0, payments: 0)].payments +=
                    payment.amount
            }
            balance += cart.balance
        }
        return ZReport(
            number: number, at: at, firstSeq: firstSeq, lastSeq: lastSeq, placed: placed, cancelled: cancelled,
            taxes: taxes.values.sorted { $0.rate < $1.rate }, discounts: discounts, fees: fees,
            tenders: Tender.allCases.compactMap { tenders[$0.rawValue] },
            channels: channels.values.sorted { $0.channel < $1.channel }, openBalance: balance)
    }
}
