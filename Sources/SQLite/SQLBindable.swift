internal import CSQLite

/// A Swift type that binds to a statement parameter.
public protocol SQLBindable {
    /// The SQLite value this Swift value is stored as.
    var sqlValue: SQLValue { get }
}
