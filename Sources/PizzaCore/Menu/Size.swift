/// A pizza size. The set is fixed (the database checks it); prices per size come from the menu.
public enum Size: String, Sendable, CaseIterable, Codable, Comparable {
    case small = "S"
    case medium = "M"
    case large = "L"
    case extraLarge = "XL"

    /// The size its letters name, compared byte by byte: the synthesized initializer went through the standard
    /// library's string switch (a `String` compared per case), and every pizza read names its size.
    public init?(rawValue: String) {
        let utf8 = rawValue.utf8
        guard let first = utf8.first else { return nil }
        switch (utf8.count, first) {
        case (1, UInt8(ascii: "S")): self = .small
        case (1, UInt8(ascii: "M")): self = .medium
        case (1, UInt8(ascii: "L")): self = .large
        case (2, UInt8(ascii: "X")) where utf8.last == UInt8(ascii: "L"): self = .extraLarge
        default: return nil
        }
    }

    /// The size's place from smallest to largest: what it is ordered and hashed by.
    private var ordinal: Int {
        switch self {
        case .small: 0
        case .medium: 1
        case .large: 2
        case .extraLarge: 3
        }
    }

    /// Smaller first: S, M, L, XL.
    public static func < (lhs: Size, rhs: Size) -> Bool { lhs.ordinal < rhs.ordinal }

    /// Hashed by its place, not its raw value: the standard library's default for a `RawRepresentable` hashes the
    /// `String`, and every pizza's price is looked up by its size.
    public func hash(into hasher: inout Hasher) { hasher.combine(ordinal) }
}
