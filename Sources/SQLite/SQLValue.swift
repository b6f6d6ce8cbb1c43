/// A value that SQLite stores: the five storage classes. See <https://www.sqlite.org/datatype3.html>.
public enum SQLValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

extension SQLValue: ExpressibleByIntegerLiteral, ExpressibleByStringLiteral, ExpressibleByNilLiteral,
    ExpressibleByBooleanLiteral
{
    /// An integer.
    public init(integerLiteral value: Int64) { self = .integer(value) }
    /// Text.
    public init(stringLiteral value: String) { self = .text(value) }
    /// `NULL`.
    public init(nilLiteral: ()) { self = .null }
    /// 1 or 0, as SQLite stores booleans.
    public init(booleanLiteral value: Bool) { self = .integer(value ? 1 : 0) }
}

extension SQLValue: SQLBindable { public var sqlValue: SQLValue { self } }
extension Int64: SQLBindable { public var sqlValue: SQLValue { .integer(self) } }
extension Int: SQLBindable { public var sqlValue: SQLValue { .integer(Int64(self)) } }
extension Int32: SQLBindable { public var sqlValue: SQLValue { .integer(Int64(self)) } }
extension Bool: SQLBindable { public var sqlValue: SQLValue { .integer(self ? 1 : 0) } }
extension Double: SQLBindable { public var sqlValue: SQLValue { .real(self) } }
extension String: SQLBindable { public var sqlValue: SQLValue { .text(self) } }
extension Substring: SQLBindable { public var sqlValue: SQLValue { .text(String(self)) } }
extension Array: SQLBindable where Element == UInt8 { public var sqlValue: SQLValue { .blob(self) } }
extension Optional: SQLBindable where Wrapped: SQLBindable {
    /// The wrapped value's, or `NULL`.
    public var sqlValue: SQLValue { self?.sqlValue ?? .null }
}
