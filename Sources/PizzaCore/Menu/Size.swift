/// A pizza size. The set is fixed (the database checks it); prices per size come from the menu.
public enum Size: String, Sendable, CaseIterable, Codable, Comparable {
    case small = "S", medium = "M", large = "L", extraLarge = "XL"

    public static func < (lhs: Size, rhs: Size) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
