import Foundation
import PizzaCore
import Testing

@testable import PizzaDaemon

/// The whole menu's keys (CONTRACT section 17) in pizzad.yaml: read into the menu, and each bad value refused
/// naming its key, before the daemon would start or a reload apply it.
@Suite("Configuration: products, VAT rates and fees")
struct MenuConfigurationTests {
    func load(_ yaml: String) async throws -> DaemonConfiguration {
        let path = NSTemporaryDirectory() + "pizzad-menu-\(UUID().uuidString).yaml"
        try Data(yaml.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try await ConfigurationLoader(flags: .init(config: path), environment: [:]).load()
    }

    @Test("the shipped configuration's menu reads whole: products, rates, the pizzas' rate, the delivery fee")
    func shipped() async throws {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        let text = try String(contentsOf: url.appendingPathComponent("config/pizzad.yaml"), encoding: .utf8)
        let menu = try await load(text).menu
        #expect(menu.taxes == ["food": 700, "drinks": 1900] && menu.pizzaTax == "food")
        #expect(menu.product(id: "cola-033")?.tax == "drinks")
        #expect(menu.product(id: "garlic-bread")?.options == ["extra-dip": 60])
        #expect(menu.deliveryFee == Fee(kind: "delivery", amount: 250, tax: TaxRate(name: "food", basisPoints: 700)))
    }

    @Test(
        "a bad menu is refused naming the key",
        arguments: [
            ("menu:\n  taxes: {food: 10001}\n  pizzaTax: food\n", "menu.taxes.food"),
            ("menu:\n  taxes: {Food: 700}\n", "menu.taxes.Food"),
            ("menu:\n  taxes: {food: 700}\n", "menu.pizzaTax"),
            ("menu:\n  pizzaTax: luxury\n", "menu.pizzaTax"),
            (
                "menu:\n  products:\n    cola: {name: Cola, category: drinks, price: 250, tax: drinks}\n",
                "menu.products.cola.tax"
            ),
            (
                "menu:\n  products:\n    cola: {name: Cola, category: drinks, price: -1, tax: none}\n",
                "menu.products.cola.price"
            ),
            (
                "menu:\n  products:\n    cola: {name: Cola, category: drinks, price: 250, tax: none, size: L}\n",
                "menu.products.cola.size"
            ),
            (
                "menu:\n  products:\n    cola: {name: Cola, category: Drinks!, price: 250, tax: none}\n",
                "menu.products.cola.category"
            ),
            (
                "menu:\n  products:\n    cheese: {name: Cheese, category: sides, price: 250, tax: none}\n",
                "menu.products.cheese"
            ),
            (
                "menu:\n  products:\n    olives-bowl: {name: Olives, category: olives, price: 250, tax: none}\n",
                "menu.products"
            ),
            ("menu:\n  fees:\n    tip: {amount: 100, tax: none}\n", "menu.fees.tip"),
            ("menu:\n  fees:\n    delivery: {amount: 250, tax: drinks}\n", "menu.fees.delivery.tax"),
        ])
    func refused(yaml: String, key: String) async {
        do {
            _ = try await load(yaml)
            Issue.record("accepted: \(yaml)")
        } catch let error as ConfigurationError {
            #expect(error.key == key, "\(error)")
        } catch {
            Issue.record("not a ConfigurationError: \(error)")
        }
    }
}
