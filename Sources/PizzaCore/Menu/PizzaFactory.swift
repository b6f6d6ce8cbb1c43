/// Makes pizzas from menu kind names: the simple factory.
///
/// `factory.builder(for: "chicken")` gives a ``PizzaBuilder`` holding the kind's defaults, to finish and
/// `build()`; `factory.makePizza("chicken")` is the default pizza of the kind. Kinds come from the ``Menu``.
public struct PizzaFactory: Sendable {
    /// The menu the factory makes pizzas from.
    public let menu: Menu
    /// Each kind with the menu, made once: a builder holds one reference to its kind's, where it held the kind
    /// and the menu themselves and every step of it retained and released their eight strings, arrays and
    /// dictionaries.
    private let kinds: [PizzaBuilder.Kind]

    /// A factory for `menu`'s kinds.
    public init(menu: Menu = .standard) {
        self.menu = menu
        kinds = menu.kinds.map { PizzaBuilder.Kind($0, menu: menu) }
    }

    /// A builder preset with the kind's defaults; throws ``PizzaError/unknownKind(_:known:)`` listing the menu.
    public func builder(for kind: String) throws(PizzaError) -> PizzaBuilder {
        // The first of the name, as `Menu.kind(named:)`.
        guard let definition = kinds.first(where: { $0.kind.name == kind }) else {
            throw .unknownKind(kind, known: menu.kinds.map(\.name))
        }
        return PizzaBuilder(definition)
    }

    /// The kind's default pizza.
    public func makePizza(_ kind: String) throws(PizzaError) -> Pizza {
        try builder(for: kind).build()
    }
}
