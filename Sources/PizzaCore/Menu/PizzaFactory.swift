/// Makes pizzas from menu kind names: the simple factory.
///
/// `factory.builder(for: "chicken")` gives a ``PizzaBuilder`` holding the kind's defaults, to finish and
/// `build()`; `factory.makePizza("chicken")` is the default pizza of the kind. Kinds come from the ``Menu``.
public struct PizzaFactory: Sendable {
    /// The menu the factory makes pizzas from.
    public let menu: Menu

    /// A factory for `menu`'s kinds.
    public init(menu: Menu = .standard) { self.menu = menu }

    /// A builder preset with the kind's defaults; throws ``PizzaError/unknownKind(_:known:)`` listing the menu.
    public func builder(for kind: String) throws(PizzaError) -> PizzaBuilder {
        guard let definition = menu.kind(named: kind) else {
            throw .unknownKind(kind, known: menu.kinds.map(\.name))
        }
        return PizzaBuilder(kind: definition, menu: menu)
    }

    /// The kind's default pizza.
    public func makePizza(_ kind: String) throws(PizzaError) -> Pizza {
        try builder(for: kind).build()
    }
}
