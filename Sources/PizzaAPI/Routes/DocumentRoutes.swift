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
    /// The items off the menu now.
    let availability: Availability

    func getMenu(_ input: Operations.GetMenu.Input) async throws -> Operations.GetMenu.Output {
        return .ok(.init(body: .json(Components.Schemas.Menu(factory().menu, unavailable: availability.unavailable))))
    }
}

extension Components.Schemas.Menu {
    /// The menu as the document types it, the items in `unavailable` marked so.
    init(_ menu: Menu, unavailable: [String] = []) {
        let off = Set(unavailable)
        let kinds: [Components.Schemas.Menu.KindsPayloadPayload] = menu.kinds.map { kind in
            let prices = Dictionary(uniqueKeysWithValues: kind.prices.map { ($0.rawValue, Int($1)) })
            let size = Components.Schemas.Size(rawValue: kind.defaultSize.rawValue) ?? .m
            return .init(
                available: !off.contains(kind.name), name: kind.name, prices: .init(additionalProperties: prices),
                size: size, crust: kind.defaultCrust, chiliSauce: kind.chiliSauce, ketchup: kind.ketchup,
                extras: kind.extras)
        }
        let products: [Components.Schemas.Menu.ProductsPayloadPayload] = menu.products.map { product in
            let options = product.options.mapValues { Int($0) }
            return .init(
                available: !off.contains(product.id), id: product.id, name: product.name, category: product.category,
                price: Int(product.price), tax: product.tax, options: .init(additionalProperties: options))
        }
        var fees: [String: Components.Schemas.Menu.FeesPayload.AdditionalPropertiesPayload] = [:]
        if let fee = menu.deliveryFee { fees[Fee.delivery] = .init(amount: Int(fee.amount), tax: fee.tax.name) }
        self.init(
            unavailable: unavailable.sorted(), currency: menu.currency, kinds: kinds, crusts: menu.crusts,
            extras: .init(additionalProperties: menu.extras.mapValues { Int($0) }),
            sizes: Size.allCases.compactMap { Components.Schemas.Size(rawValue: $0.rawValue) }, products: products,
            taxes: .init(additionalProperties: menu.taxes.mapValues { Int($0) }), pizzaTax: menu.pizzaTax,
            fees: .init(additionalProperties: fees))
    }
}
