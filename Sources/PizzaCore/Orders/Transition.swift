/// A move in an order's life.
public enum Transition: String, Sendable, CaseIterable, Codable {
    case place, advance, cancel
}
