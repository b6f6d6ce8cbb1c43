/// The wire text of the orders changed last, kept with the order it is the text of, so that the next change to one of
/// them takes the order's `before` text as it was written instead of encoding the order again (a payment right after
/// the order was made, each step of the kitchen).
///
/// A text is handed out only for an order equal to the one it was written for: a change that was rolled back, or two
/// changes within one millisecond, can leave an entry that no longer matches the order the transaction reads, and
/// then the order is encoded as before. Bounded: past ``capacity`` orders it starts again.
@usableFromInline final class RecentTexts: Sendable {
    @usableFromInline let entries = Locked<[Int64: (cart: Cart, text: String)]>([:])
    @usableFromInline static let capacity = 512

    @usableFromInline init() {}

    /// The text written for `cart`, if it is the order kept.
    @inlinable func text(of cart: Cart) -> String? {
        entries.withLock { entries in
            guard let kept = entries[cart.id], kept.cart == cart else { return nil }
            return kept.text
        }
    }

    /// Keeps `text` as `cart`'s wire text.
    @inlinable func keep(_ cart: Cart, text: String) {
        entries.withLock { entries in
            if entries.count >= Self.capacity, entries[cart.id] == nil { entries.removeAll(keepingCapacity: true) }
            entries[cart.id] = (cart, text)
        }
    }
}
