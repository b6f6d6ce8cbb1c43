import Foundation
import PizzaCore
import Testing

@Suite("PizzaFactory and PizzaBuilder")
struct PizzaFactoryTests {
    let factory = PizzaFactory()

    @Test("a kind name gives a pizza with the kind's defaults")
    func defaults() throws {
        let pizza = try factory.makePizza("seafood")
        #expect(pizza.kind == "seafood")
        #expect(pizza.size == .medium)
        #expect(pizza.crust == "thin")
        #expect(pizza.quantity == 1)
        #expect(pizza.unitPrice == 1150)
    }

    @Test("a new kind is a menu entry, not a code change")
    func newKindFromMenu() throws {
        var menu = Menu.standard
        menu.kinds.append(PizzaKind(name: "hawaii", prices: [.large: 1500], defaultSize: .large, ketchup: true))
        let pizza = try PizzaFactory(menu: menu).makePizza("hawaii")
        #expect(pizza.ketchup)
        #expect(pizza.price == 1500)
    }

    @Test("the builder sets every field and prices the pizza in cents")
    func builder() throws {
        let pizza = try factory.builder(for: "chicken")
            .size("L").crust("thin").chiliSauce().ketchup().extras(["olives", "bacon", "olives"]).quantity(3)
            .build()
        #expect(pizza.size == .large)
        #expect(pizza.crust == "thin")
        #expect(pizza.chiliSauce && pizza.ketchup)
        #expect(pizza.extras == ["bacon", "olives"])
        #expect(pizza.unitPrice == 1250 + 150 + 80)
        #expect(pizza.price == 3 * (1250 + 150 + 80))
    }

    @Test("each size is priced from its own entry in the kind's prices", arguments: Size.allCases)
    func pricePerSize(_ size: Size) throws {
        let prices: [Size: Int64] = [.small: 101, .medium: 202, .large: 303, .extraLarge: 404]
        let menu = Menu(
            currency: "EUR", kinds: [PizzaKind(name: "test", prices: prices, extras: [])], crusts: ["classic"],
            extras: [:])
        #expect(try PizzaFactory(menu: menu).builder(for: "test").size(size).build().unitPrice == prices[size])
        let without = Menu(
            currency: "EUR", kinds: [PizzaKind(name: "test", prices: prices.filter { $0.key != size }, extras: [])],
            crusts: ["classic"], extras: [:])
        #expect(throws: PizzaError.self) { try PizzaFactory(menu: without).builder(for: "test").size(size).build() }
    }

    @Test("unknown kind names the known ones")
    func unknownKind() {
        #expect(throws: PizzaError.unknownKind("hawaii", known: ["cheese", "chicken", "seafood"])) {
            try factory.makePizza("hawaii")
        }
        let error = PizzaError.unknownKind("hawaii", known: ["cheese", "chicken", "seafood"])
        #expect(error.field == "kind")
        #expect(error.description.contains("cheese, chicken, seafood"))
    }

    @Test("unknown size")
    func unknownSize() {
        #expect(throws: PizzaError.unknownSize("XXL", allowed: ["S", "M", "L", "XL"])) {
            try factory.builder(for: "cheese").size("XXL").build()
        }
    }

    @Test("size not offered for the kind")
    func sizeNotOffered() {
        #expect(throws: PizzaError.sizeNotOffered(.extraLarge, kind: "seafood", offered: ["S", "M", "L"])) {
            try factory.builder(for: "seafood").size(.extraLarge).build()
        }
    }

    @Test("unknown crust")
    func unknownCrust() {
        #expect(throws: PizzaError.unknownCrust("cardboard", allowed: ["classic", "thin", "stuffed"])) {
            try factory.builder(for: "cheese").crust("cardboard").build()
        }
    }

    @Test("unknown extra")
    func unknownExtra() {
        let error = #expect(throws: PizzaError.self) {
            try factory.builder(for: "cheese").extra("pineapple").build()
        }
        #expect(error?.field == "extras")
        #expect(error?.allowed.contains("olives") == true)
    }

    @Test("quantity outside 1...50", arguments: [0, -1, 51, 1000])
    func quantity(_ quantity: Int) {
        #expect(throws: PizzaError.quantityOutOfRange(quantity, allowed: 1...50)) {
            try factory.builder(for: "cheese").quantity(quantity).build()
        }
    }

    @Test("quantity 1 and 50 are fine", arguments: [1, 50])
    func quantityBounds(_ quantity: Int) throws {
        #expect(try factory.builder(for: "cheese").quantity(quantity).build().quantity == quantity)
    }

    @Test("sizes order smallest first, and each is its own key in a price list")
    func sizes() {
        #expect(Size.allCases.shuffled().sorted() == [.small, .medium, .large, .extraLarge])
        #expect(Set(Size.allCases).count == 4)
        let prices = Dictionary(uniqueKeysWithValues: Size.allCases.enumerated().map { ($1, Int64($0)) })
        #expect(Size.allCases.map { prices[$0] } == [0, 1, 2, 3])
        #expect(
            PizzaKind(name: "x", prices: [.extraLarge: 1, .small: 2, .large: 3]).sizes == [.small, .large, .extraLarge])
    }

    @Test("a size is read from its letters exactly, and from nothing else")
    func sizeNames() throws {
        #expect(Size.allCases.allSatisfy { Size(rawValue: $0.rawValue) == $0 })
        #expect(["S", "M", "L", "XL"].compactMap(Size.init(rawValue:)) == [.small, .medium, .large, .extraLarge])
        for name in [
            "", "s", "m", "l", "xl", "X", "XM", "XLL", "LL", "SL", "ML", " S", "S ", "XS", "XXL", "Ｓ", "S\u{0}",
        ] {
            #expect(Size(rawValue: name) == nil, "\(name.debugDescription) is no size")
        }
        // Decoding goes through the same initializer.
        #expect(try JSONDecoder().decode([Size].self, from: Data(#"["XL","S"]"#.utf8)) == [.extraLarge, .small])
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Size.self, from: Data(#""XXL""#.utf8)) }
    }
}
