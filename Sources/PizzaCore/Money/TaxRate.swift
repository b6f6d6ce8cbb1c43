/// A VAT rate as an order keeps it: its name on the menu (`food`, `drinks`) and its basis points (`700` is 7%),
/// taken when the line was added, so that a later menu change does not alter an order (CONTRACT section 17).
public struct TaxRate: Sendable, Hashable, Comparable {
    /// The rate's name in `menu.taxes`.
    public var name: String
    /// The rate in hundredths of a percent: 700 is 7%, 1900 is 19%.
    public var basisPoints: Int64

    /// The rate `name` at `basisPoints`.
    public init(name: String, basisPoints: Int64) {
        self.name = name
        self.basisPoints = basisPoints
    }

    /// The one rate of a menu without taxes, and of every line written before taxes existed: `none`, 0.
    public static let none = TaxRate(name: "none", basisPoints: 0)

    /// The highest rate a menu may name: 100%.
    public static let maximumBasisPoints: Int64 = 10_000

    /// By name, then basis points: the order the taxes are listed in.
    public static func < (lhs: TaxRate, rhs: TaxRate) -> Bool {
        (lhs.name, lhs.basisPoints) < (rhs.name, rhs.basisPoints)
    }

    /// The VAT inside `gross` (prices include VAT): `gross × bp / (10000 + bp)`, rounded half up to the cent.
    public func tax(inGross gross: Int64) -> Int64 {
        Money.divideRoundingHalfUp(gross, times: basisPoints, by: 10_000 + basisPoints)
    }
}

/// Integer money arithmetic: every figure is in cents, and nothing in it rounds twice.
public enum Money {
    /// The most any one amount a client sends may be (cents): far above any shop's order, low enough that sums of
    /// many of them, and their products with a rate, fit in 64 bits.
    public static let maximumAmount: Int64 = 1 << 40

    /// `value × numerator / denominator`, rounded half away from zero, without overflow in the product.
    public static func divideRoundingHalfUp(_ value: Int64, times numerator: Int64, by denominator: Int64) -> Int64 {
        precondition(denominator > 0, "a positive denominator")
        let negative = (value < 0) != (numerator < 0)
        let product = value.magnitude.multipliedFullWidth(by: numerator.magnitude)
        let (quotient, remainder) = denominator.magnitude.dividingFullWidth(product)
        let rounded = remainder * 2 >= denominator.magnitude ? quotient + 1 : quotient
        return negative ? -Int64(rounded) : Int64(rounded)
    }

    /// `value × numerator / denominator`, rounded down (for non-negative inputs), without overflow in the product.
    public static func divideRoundingDown(_ value: Int64, times numerator: Int64, by denominator: Int64) -> Int64 {
        precondition(value >= 0 && numerator >= 0 && denominator > 0, "non-negative shares")
        let product = value.magnitude.multipliedFullWidth(by: numerator.magnitude)
        return Int64(denominator.magnitude.dividingFullWidth(product).quotient)
    }

    /// The sum, or nil when it does not fit.
    public static func sum(_ values: some Sequence<Int64>) -> Int64? {
        var total: Int64 = 0
        for value in values {
            let (sum, overflow) = total.addingReportingOverflow(value)
            if overflow { return nil }
            total = sum
        }
        return total
    }
}
