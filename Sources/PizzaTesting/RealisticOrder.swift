public import PizzaWire

/// A shop's whole order (CONTRACT section 17) as pizzabench's `whole-order` measures it: two pizzas, two colas, a
/// garlic bread with a dip, delivered to an address, placed at once, from a menu with VAT and a delivery fee. The
/// socket bound (`SocketWork/socketwork.c`) writes the same rows in C; a test holds the two to the same rows.
public enum RealisticOrder {
    /// The menu the realistic order is made from: the built-in one, with a drink, a side, VAT and a delivery fee.
    public static let menu = """
        menu:
          taxes: {food: 700, drinks: 1900}
          pizzaTax: food
          products:
            cola-033: {name: Cola 0.33 l, category: drinks, price: 250, tax: drinks}
            garlic-bread: {name: Garlic bread, category: sides, price: 450, tax: food, options: {extra-dip: 60}}
          fees:
            delivery: {amount: 250, tax: food}
        """

    /// `order.create`'s params: two pizzas, a drink, a side, delivered to an address, placed at once.
    public static let params: [(String, JSONValue)] = [
        ("customer", "bench"),
        (
            "items",
            [
                ["kind": "chicken", "size": "L", "extras": ["olives"]], ["kind": "cheese"],
                ["product": "cola-033", "quantity": 2], ["product": "garlic-bread", "options": ["extra-dip"]],
            ]
        ),
        (
            "fulfilment",
            [
                "type": "delivery", "phone": "030 1234567",
                "address": ["street": "Hauptstr. 5", "postcode": "10115", "city": "Berlin"],
            ]
        ),
        ("place", true),
    ]
}
