/// The version of pizzad and pizzactl, built together from this repository.
public enum PizzadVersion {
    public static let current = "0.2.0"
}
