/// One line of a cart: a pizza with its own item id.
public struct CartItem: Sendable, Equatable {
    /// The item id (`pizzas.id`), used to remove it.
    public var id: Int64
    /// The pizza, with its price.
    public var pizza: Pizza

    /// The item `id` holding `pizza`.
    public init(id: Int64, pizza: Pizza) {
        self.id = id
        self.pizza = pizza
    }
}
