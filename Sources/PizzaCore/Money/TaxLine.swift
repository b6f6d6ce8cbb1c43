/// One VAT rate's figures on an order or a report: `{rate, basisPoints, gross, net, tax}`, with net + tax = gross.
public struct TaxLine: Sendable, Equatable {
    /// The rate.
    public var rate: TaxRate
    /// What was charged at the rate, VAT included, in cents.
    public var gross: Int64
    /// The VAT in it: ``TaxRate/tax(inGross:)``, once per rate.
    public var tax: Int64
    /// gross - tax.
    public var net: Int64 { gross - tax }

    /// The line for `gross` at `rate`, its tax computed.
    public init(rate: TaxRate, gross: Int64) {
        self.rate = rate
        self.gross = gross
        self.tax = rate.tax(inGross: gross)
    }
}

extension Cart {
    /// The discounts' sum, in cents.
    public var discountTotal: Int64 { Money.sum(discounts.lazy.map(\.amount)) ?? .max }
    /// The fees' sum, in cents.
    public var feeTotal: Int64 { Money.sum(fees.lazy.map(\.amount)) ?? .max }
    /// The payments' sum less the refunds, in cents.
    public var paid: Int64 { Money.sum(payments.lazy.map(\.amount)) ?? .max }
    /// What is still owed: total - paid (negative when more was paid than is owed, as a cancelled, paid order).
    public var balance: Int64 {
        let (balance, overflow) = total.subtractingReportingOverflow(paid)
        return overflow ? .min : balance
    }

    /// One line per VAT rate (CONTRACT section 17), by rate: each item's gross at its own rate less its item
    /// discounts; the order's discounts shared among the rates in proportion to their gross, rounded down, the cents
    /// left over going to the rate with the largest gross; the fees at their rates. Their gross adds up to
    /// ``total``. None once cancelled.
    public var taxes: [TaxLine] {
        if status == .cancelled { return [] }
        var gross: [(rate: TaxRate, gross: Int64)] = []
        func add(_ amount: Int64, at rate: TaxRate) {
            if let index = gross.firstIndex(where: { $0.rate == rate }) {
                gross[index].gross &+= amount
            } else {
                gross.append((rate, amount))
            }
        }
        var orderDiscount: Int64 = 0
        var itemDiscounts: [Int64: Int64] = [:]
        for discount in discounts {
            if let item = discount.item {
                itemDiscounts[item, default: 0] &+= discount.amount
            } else {
                orderDiscount &+= discount.amount
            }
        }
        for item in items { add(item.pizza.price &- (itemDiscounts[item.id] ?? 0), at: item.pizza.tax) }
        for line in products { add(line.product.price &- (itemDiscounts[line.id] ?? 0), at: line.product.tax) }
        gross.sort { $0.rate < $1.rate }
        if orderDiscount > 0, let whole = Money.sum(gross.lazy.map(\.gross)), whole > 0 {
            // The largest gross before the shares (the first of equals, so the same order gives the same figures).
            var largest = gross.startIndex
            for index in gross.indices where gross[index].gross > gross[largest].gross { largest = index }
            var shared: Int64 = 0
            for index in gross.indices {
                let share = Money.divideRoundingDown(orderDiscount, times: max(0, gross[index].gross), by: whole)
                gross[index].gross -= share
                shared += share
            }
            gross[largest].gross -= orderDiscount - shared
        }
        for fee in fees { add(fee.amount, at: fee.tax) }
        gross.sort { $0.rate < $1.rate }
        return gross.map { TaxLine(rate: $0.rate, gross: $0.gross) }
    }
}
