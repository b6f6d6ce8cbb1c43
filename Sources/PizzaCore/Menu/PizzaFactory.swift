/// Makes pizzas from menu kind names: the simple factory.
///
/// `factory.builder(for: "chicken")` gives a ``PizzaBuilder`` holding the kind's defaults, to finish and
/// `build()`; `factory.makePizza("chicken")` is the default pizza of the kind. Kinds come from the ``Menu``.
public struct PizzaFactory: Sendable {
    /// The menu and its kinds, made once and shared by every copy: the daemon hands each request line a copy of its
    /// factory, which is then one reference to retain, where it was the menu's four and the kinds'.
    private final class Storage: Sendable {
        let menu: Menu
        /// Each kind with the menu: a builder holds one reference to its kind's, where it held the kind and the menu
        /// themselves and every step of it retained and released their eight strings, arrays and dictionaries.
        let kinds: [PizzaBuilder.Kind]

        init(menu: Menu) {
            self.menu = menu
            kinds = menu.kinds.map { PizzaBuilder.Kind($0, menu: menu) }
        }
    }

    private let storage: Storage

    /// The menu the factory makes pizzas from.
    public var menu: Menu { storage.menu }

    /// A factory for `menu`'s kinds.
    public init(menu: Menu = .standard) {
        storage = Storage(menu: menu)
    }

    /// A builder preset with the kind's defaults; throws ``PizzaError/unknownKind(_:known:)`` listing the menu.
    public func builder(for kind: String) throws(PizzaError) -> PizzaBuilder {
        // The first of the name, as `Menu.kind(named:)`.
        guard let definition = storage.kinds.first(where: { $0.kind.name == kind }) else {
            throw .unknownKind(kind, known: menu.kinds.map(\.name))
        }
        return PizzaBuilder(definition)
    }

    /// The kind's default pizza.
    public func makePizza(_ kind: String) throws(PizzaError) -> Pizza {
        try builder(for: kind).build()
    }
}
