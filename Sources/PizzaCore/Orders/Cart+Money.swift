/// The changes of a shop's whole order (CONTRACT section 17): how it reaches the customer, discounts, payments and
/// refunds. Each checks its rules, throws an ``OrderError`` naming the field at fault, and changes nothing then.
extension Cart {
    /// The most bytes an item's note may have.
    public static let noteBytes = 200

    /// Throws a `validation` unless `note` is printable text of at most ``noteBytes`` bytes.
    public static func checkNote(_ note: String) throws(OrderError) {
        if let refusal = ShopText.refusal(note, field: "note", characters: 1...noteBytes, bytes: noteBytes) {
            throw refusal
        }
    }

    /// How big a discount is: an amount in cents, or a whole percent (1-100) of what it applies to.
    public enum DiscountSize: Sendable, Equatable {
        /// An amount in cents.
        case amount(Int64)
        /// A whole percent, 1-100.
        case percent(Int)
    }

    /// Sets how the order reaches its customer; a delivery carries `deliveryFee` (the menu's, if any), another
    /// type none. Only before the order ships.
    public mutating func setFulfilment(
        _ fulfilment: Fulfilment, deliveryFee: Fee?, at time: Timestamp
    ) throws(OrderError) {
        guard status.isCancellable else { throw .tooLate(id: id, status: status, change: "its fulfilment changes") }
        try fulfilment.check()
        applyFulfilment(fulfilment, deliveryFee: deliveryFee, at: time)
    }

    /// ``setFulfilment(_:deliveryFee:at:)`` for a fulfilment already checked (a new order's, which the repository
    /// checked before it reached the writer).
    public mutating func applyFulfilment(_ fulfilment: Fulfilment, deliveryFee: Fee?, at time: Timestamp) {
        self.fulfilment = fulfilment
        if !fees.isEmpty { fees.removeAll { $0.kind == Fee.delivery } }
        if fulfilment.type == .delivery, let deliveryFee, deliveryFee.amount > 0 { fees.append(deliveryFee) }
        updatedAt = time
    }

    /// Gives a discount on the order, or on one of its items (`item`): an amount, or a percent of what is left of
    /// it after earlier discounts (rounded half up). Only before the order ships; never more than is left.
    public mutating func discount(
        _ size: DiscountSize, item: Int64?, reason: String, discountID: Int64, by actor: ChangeActor,
        at time: Timestamp
    ) throws(OrderError) {
        guard status.isCancellable else { throw .tooLate(id: id, status: status, change: "a discount is given") }
        if let refusal = ShopText.refusal(reason, field: "reason", characters: 1...200, bytes: 800) { throw refusal }
        let left: Int64
        if let item {
            let price =
                items.first { $0.id == item }?.pizza.price ?? products.first { $0.id == item }?.product.price
            guard let price else { throw .itemNotFound(orderID: id, itemID: item) }
            // What is left of the item, and never more than is left of the order (its discounts count too).
            let itemLeft = price - (Money.sum(discounts.lazy.filter { $0.item == item }.map(\.amount)) ?? .max)
            left = min(itemLeft, subtotal - discountTotal)
        } else {
            left = subtotal - discountTotal
        }
        let amount: Int64
        var percent: Int?
        switch size {
        case .amount(let value):
            guard value >= 1, value <= Money.maximumAmount else {
                throw .validation(
                    field: "amount", allowed: ["1..\(Money.maximumAmount) cents"],
                    message: "a discount's amount must be 1 to \(Money.maximumAmount) cents")
            }
            amount = value
        case .percent(let value):
            guard (1...100).contains(value) else {
                throw .validation(
                    field: "percent", allowed: ["1..100"], message: "a discount's percent must be a whole 1 to 100")
            }
            percent = value
            amount = Money.divideRoundingHalfUp(max(0, left), times: Int64(value), by: 100)
        }
        guard amount >= 1, amount <= left else {
            let what = item.map { "item \($0)" } ?? "the order"
            throw .validation(
                field: percent == nil ? "amount" : "percent", allowed: ["at most \(max(0, left)) cents"],
                message: "a discount of \(amount) cents is more than is left of \(what) (\(max(0, left)) cents)")
        }
        discounts.append(
            Discount(id: discountID, amount: amount, percent: percent, item: item, reason: reason, by: actor, at: time))
        updatedAt = time
    }

    /// Records a payment. A `ref` the order already has is the same payment: nothing changes (and another amount or
    /// tender with it is ``OrderError/refConflict(id:ref:)``). A cancelled order takes no payment.
    public mutating func pay(
        _ tender: Tender, amount: Int64, ref: String?, paymentID: Int64, by actor: ChangeActor, at time: Timestamp
    ) throws(OrderError) {
        if let ref {
            try Self.checkRef(ref)
            if let known = payments.first(where: { $0.ref == ref }) {
                guard known.amount == amount, known.tender == tender else { throw .refConflict(id: id, ref: ref) }
                return
            }
        }
        guard status != .cancelled else {
            throw .validation(
                field: "id", allowed: ["an order that is not cancelled"],
                message: "order \(id) is cancelled; it takes no payment (refund one instead)")
        }
        guard amount >= 1, amount <= Money.maximumAmount else {
            throw .validation(
                field: "amount", allowed: ["1..\(Money.maximumAmount) cents"],
                message: "a payment's amount must be 1 to \(Money.maximumAmount) cents")
        }
        guard Money.sum(payments.lazy.map(\.amount).filter { $0 > 0 } + [amount]) != nil else {
            throw .validation(
                field: "amount", allowed: ["a sum of payments that fits"], message: "the payments would overflow")
        }
        payments.append(Payment(id: paymentID, tender: tender, amount: amount, at: time, by: actor, ref: ref))
        updatedAt = time
    }

    /// Refunds part or all of a payment: a payment with a negative amount, the refunded one's tender, and
    /// `refunds` naming it; never more than is left of it. Allowed in every status (a cancelled order's too).
    public mutating func refund(
        payment paymentID: Int64, amount: Int64, reason: String, refundID: Int64, by actor: ChangeActor,
        at time: Timestamp
    ) throws(OrderError) {
        guard let payment = payments.first(where: { $0.id == paymentID && $0.refunds == nil && $0.amount > 0 }) else {
            throw .validation(
                field: "payment", allowed: payments.filter { $0.refunds == nil }.map { String($0.id) },
                message: "order \(id) has no payment \(paymentID)")
        }
        if let refusal = ShopText.refusal(reason, field: "reason", characters: 1...200, bytes: 800) { throw refusal }
        let refunded = -(Money.sum(payments.lazy.filter { $0.refunds == paymentID }.map(\.amount)) ?? 0)
        let left = payment.amount - refunded
        guard amount >= 1, amount <= left else {
            throw .validation(
                field: "amount", allowed: ["1..\(left) cents"],
                message: "a refund of payment \(paymentID) must be 1 to \(left) cents (what is left of it)")
        }
        payments.append(
            Payment(
                id: refundID, tender: payment.tender, amount: -amount, at: time, by: actor, refunds: paymentID,
                reason: reason))
        updatedAt = time
    }
}
