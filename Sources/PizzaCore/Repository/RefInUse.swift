/// A store's writer found a new order's `ref` already on another order when it wrote the new one.
///
/// A create with a `ref` runs without looking the ref up first: the store's unique index on it is the check that
/// counts (the lookup costs every till's every order a second search of that index). When the index refuses,
/// the store throws this, having written nothing of the change, and the repository runs the create again with
/// the lookup, which answers with the order that has the ref. It never reaches a caller.
public struct RefInUse: Error, Sendable, Equatable {
    /// The ref the other order holds.
    public let ref: String

    /// The refusal of `ref`.
    public init(ref: String) { self.ref = ref }
}
