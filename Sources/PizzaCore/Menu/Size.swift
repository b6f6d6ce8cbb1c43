/// A pizza size. The set is fixed (the database checks it); prices per size come from the menu.
public enum Size: String, Sendable, CaseIterable, Codable, Comparable {
    case small = "S"
    case medium = "M"
    case large = "L"
    case extraLarge = "XL"

    /// Smaller first: S, M, L, XL.
    public static func < (lhs: Size, rhs: Size) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
