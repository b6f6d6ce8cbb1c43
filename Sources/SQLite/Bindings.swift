internal import CSQLite

/// A statement's parameters `?1…?n`, bound in order, each by a call for its own type: for the statements every
/// change runs, where an array of ``SQLBindable`` values cost an allocation, a box per value and an ``SQLValue``
/// per value, then their releases, on the writer's thread.
///
/// Only ``Statement/execute(binding:)`` makes one. A binding that SQLite refuses is remembered and thrown from
/// there, as is a count of parameters that does not match the statement's.
public struct Bindings: ~Copyable {
    let handle: OpaquePointer
    /// The next parameter's index (1-based).
    private(set) var next: Int32 = 1
    /// The first result code other than `SQLITE_OK`, if any.
    private(set) var failure: Int32 = SQLITE_OK

    init(handle: OpaquePointer) { self.handle = handle }

    /// How many parameters were bound.
    var count: Int { Int(next - 1) }

    private mutating func advance(_ code: Int32) {
        if code != SQLITE_OK, failure == SQLITE_OK { failure = code }
        next += 1
    }

    public mutating func bind(_ value: Int64) { advance(sqlite3_bind_int64(handle, next, value)) }
    public mutating func bind(_ value: Int) { bind(Int64(value)) }
    public mutating func bind(_ value: Int32) { bind(Int64(value)) }
    public mutating func bind(_ value: UInt32) { bind(Int64(value)) }
    public mutating func bind(_ value: Bool) { bind(Int64(value ? 1 : 0)) }

    public mutating func bind(_ value: String) { advance(Self.bindText(value, to: handle, at: next)) }

    /// Binds `text` as UTF-8 to parameter `index` of `handle`; SQLite copies it. Shared with
    /// ``Statement/bind(_:)``'s `SQLValue.text`.
    static func bindText(_ text: String, to handle: OpaquePointer, at index: Int32) -> Int32 {
        func bind(_ bytes: UnsafeBufferPointer<UInt8>) -> Int32 {
            sqlite3_bind_text(
                handle, index, UnsafeRawPointer(bytes.baseAddress)?.assumingMemoryBound(to: CChar.self),
                Int32(bytes.count), pizzad_sqlite3_transient())
        }
        // A native string's bytes where they are: `withUTF8` needs a `var`, whose copy cost a retain and a release
        // of every text bound.
        if let result = text.utf8.withContiguousStorageIfAvailable(bind) { return result }
        var text = text
        return text.withUTF8(bind)
    }

    public mutating func bind(_ value: String?) {
        guard let value else { return advance(sqlite3_bind_null(handle, next)) }
        bind(value)
    }

    public mutating func bind(_ value: Int64?) {
        guard let value else { return advance(sqlite3_bind_null(handle, next)) }
        bind(value)
    }
}
