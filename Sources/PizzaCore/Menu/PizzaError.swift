/// Why a pizza could not be made. Each names the field at fault and what it allows.
public enum PizzaError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The kind is not on the menu.
    case unknownKind(String, known: [String])
    /// The size is not one of S, M, L, XL.
    case unknownSize(String, allowed: [String])
    /// The kind is not offered in that size.
    case sizeNotOffered(Size, kind: String, offered: [String])
    /// The crust is not on the menu.
    case unknownCrust(String, allowed: [String])
    /// The extra is not on the menu.
    case unknownExtra(String, allowed: [String])
    /// The quantity is outside 1…50.
    case quantityOutOfRange(Int, allowed: ClosedRange<Int>)
    /// The product is not on the menu.
    case unknownProduct(String, known: [String])
    /// The option is not one of the product's.
    case unknownOption(String, product: String, allowed: [String])
    /// A product's quantity is outside 1…100.
    case productQuantityOutOfRange(Int, allowed: ClosedRange<Int>)

    /// The field at fault, as named on the wire.
    public var field: String {
        switch self {
        case .unknownKind: "kind"
        case .unknownSize, .sizeNotOffered: "size"
        case .unknownCrust: "crust"
        case .unknownExtra: "extras"
        case .quantityOutOfRange, .productQuantityOutOfRange: "quantity"
        case .unknownProduct: "product"
        case .unknownOption: "options"
        }
    }

    /// What the field allows.
    public var allowed: [String] {
        switch self {
        case .unknownKind(_, let known), .unknownProduct(_, let known): known
        case .unknownOption(_, _, let allowed): allowed
        case .unknownSize(_, let allowed), .unknownCrust(_, let allowed), .unknownExtra(_, let allowed): allowed
        case .sizeNotOffered(_, _, let offered): offered
        case .quantityOutOfRange(_, let range), .productQuantityOutOfRange(_, let range):
            ["\(range.lowerBound)..\(range.upperBound)"]
        }
    }

    public var description: String {
        switch self {
        case .unknownKind(let kind, let known):
            "unknown pizza kind '\(kind)'; the menu has: \(known.joined(separator: ", "))"
        case .unknownSize(let size, let allowed):
            "unknown size '\(size)'; sizes are: \(allowed.joined(separator: ", "))"
        case .sizeNotOffered(let size, let kind, let offered):
            "\(kind) is not offered in size \(size.rawValue); it comes in: \(offered.joined(separator: ", "))"
        case .unknownCrust(let crust, let allowed):
            "unknown crust '\(crust)'; crusts are: \(allowed.joined(separator: ", "))"
        case .unknownExtra(let extra, let allowed):
            "unknown extra '\(extra)'; extras are: \(allowed.joined(separator: ", "))"
        case .quantityOutOfRange(let quantity, let range), .productQuantityOutOfRange(let quantity, let range):
            "quantity \(quantity) is out of range; allowed: \(range.lowerBound) to \(range.upperBound)"
        case .unknownProduct(let product, let known):
            "unknown product '\(product)'; the menu has: \(known.isEmpty ? "none" : known.joined(separator: ", "))"
        case .unknownOption(let option, let product, let allowed):
            "\(product) has no option '\(option)'; options are: \(allowed.isEmpty ? "none" : allowed.joined(separator: ", "))"
        }
    }
}
