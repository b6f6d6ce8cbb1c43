import Hummingbird
import OpenAPIHummingbird
import OpenAPIRuntime
import PizzaCore

/// The routes served from the types swift-openapi-generator made of docs/openapi.yaml (Sources/PizzaAPIGenerated,
/// `scripts/generate-openapi`): `GET /v1/menu`. The document is their source: a field it does not name cannot be
/// answered, and the generated server checks the request against it.
///
/// The orders' routes are not among them: their answers are the order's one wire form, written once per change and
/// kept with its idempotency key so that a replay answers the same bytes, and the changes are answered on the event
/// loop (``ChangesOnLoop``); the generated types would decode and encode each order again through Foundation's JSON
/// coders (docs/PERFORMANCE.md, "The order API").
struct DocumentRoutes: APIProtocol {
    let factory: @Sendable () -> PizzaFactory

    func getMenu(_ input: Operations.GetMenu.Input) async throws -> Operations.GetMenu.Output {
        return .ok(.init(body: .json(Components.Schemas.Menu(factory().menu))))
    }
}

extension Components.Schemas.Menu {
    /// The menu as the document types it.
    init(_ menu: Menu) {
        self.init(
            currency: menu.currency,
            kinds: menu.kinds.map { kind in
                .init(
                    name: kind.name,
                    prices: .init(
                        additionalProperties: Dictionary(
                            uniqueKeysWithValues: kind.prices.map { ($0.rawValue, Int($1)) })),
                    size: Components.Schemas.Size(rawValue: kind.defaultSize.rawValue) ?? .m, crust: kind.defaultCrust,
                    chiliSauce: kind.chiliSauce, ketchup: kind.ketchup, extras: kind.extras)
            },
            crusts: menu.crusts,
            extras: .init(additionalProperties: menu.extras.mapValues { Int($0) }),
            sizes: Size.allCases.compactMap { Components.Schemas.Size(rawValue: $0.rawValue) },
            products: menu.products.map { product in
                .init(
                    id: product.id, name: product.name, category: product.category, price: Int(product.price),
                    tax: product.tax, options: .init(additionalProperties: product.options.mapValues { Int($0) }))
            },
            taxes: .init(additionalProperties: menu.taxes.mapValues { Int($0) }), pizzaTax: menu.pizzaTax,
            fees: .init(
                additionalProperties: menu.deliveryFee.map {
                    [Fee.delivery: .init(amount: Int($0.amount), tax: $0.tax.name)]
                }
                    ?? [:]))
    }
}
