internal import CSQLite

/// The current row of a stepping statement. Valid only inside the closure it is passed to.
///
/// Do not keep it: it reads the statement's current row, which the next step replaces.
public struct Row {
    let handle: OpaquePointer

    /// How many columns the row has.
    public var count: Int32 { sqlite3_column_count(handle) }

    /// Whether the column holds NULL.
    public func isNull(_ index: Int32) -> Bool { sqlite3_column_type(handle, index) == SQLITE_NULL }

    /// The column as a 64-bit integer (NULL reads as 0; check `isNull` where that matters).
    public func int64(_ index: Int32) -> Int64 { sqlite3_column_int64(handle, index) }

    /// The column as an `Int`.
    public func int(_ index: Int32) -> Int { Int(sqlite3_column_int64(handle, index)) }

    /// The column as a Boolean (non-zero is true).
    public func bool(_ index: Int32) -> Bool { sqlite3_column_int64(handle, index) != 0 }

    /// The column as a double.
    public func double(_ index: Int32) -> Double { sqlite3_column_double(handle, index) }

    /// The column as UTF-8 text (NULL reads as the empty string).
    public func string(_ index: Int32) -> String {
        guard let text = sqlite3_column_text(handle, index) else { return "" }
        let length = Int(sqlite3_column_bytes(handle, index))
        return String(decoding: UnsafeBufferPointer(start: text, count: length), as: UTF8.self)
    }

    /// The column as text, or nil when it is NULL.
    public func optionalString(_ index: Int32) -> String? { isNull(index) ? nil : string(index) }

    /// The column as an integer, or nil when it is NULL.
    public func optionalInt64(_ index: Int32) -> Int64? { isNull(index) ? nil : int64(index) }

    /// The column as bytes.
    public func blob(_ index: Int32) -> [UInt8] {
        let length = Int(sqlite3_column_bytes(handle, index))
        guard length > 0, let bytes = sqlite3_column_blob(handle, index) else { return [] }
        return Array(UnsafeRawBufferPointer(start: bytes, count: length))
    }

    /// The column as whichever storage class it holds.
    public func value(_ index: Int32) -> SQLValue {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER: .integer(int64(index))
        case SQLITE_FLOAT: .real(double(index))
        case SQLITE_TEXT: .text(string(index))
        case SQLITE_BLOB: .blob(blob(index))
        default: .null
        }
    }
}
