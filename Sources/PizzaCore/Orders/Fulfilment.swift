/// How an order reaches its customer, and when (CONTRACT section 17): pickup (the default), delivery (with a phone
/// and an address) or dine-in (at a table), with the time it is wanted (`dueAt`; nil for as soon as possible).
public struct Fulfilment: Sendable, Equatable {
    /// The three ways an order leaves the shop.
    public enum Kind: String, Sendable, CaseIterable, Codable {
        /// The customer collects it.
        case pickup
        /// The shop delivers it to an address.
        case delivery
        /// Served at a table.
        case dinein
    }

    /// A delivery address.
    public struct Address: Sendable, Equatable {
        /// Street and number.
        public var street: String
        /// Postcode.
        public var postcode: String
        /// City.
        public var city: String
        /// For the driver: "2nd floor, ring twice".
        public var notes: String?

        /// An address.
        public init(street: String, postcode: String, city: String, notes: String? = nil) {
            self.street = street
            self.postcode = postcode
            self.city = city
            self.notes = notes
        }

        /// On one line: `Hauptstr. 5, 10115 Berlin`.
        public var inShort: String { "\(street), \(postcode) \(city)" }
    }

    /// Pickup, delivery or dine-in.
    public var type: Kind
    /// The customer's phone (required for a delivery).
    public var phone: String?
    /// Where to deliver (required for a delivery).
    public var address: Address?
    /// The table (required for dine-in).
    public var table: String?
    /// When the customer wants it; nil for as soon as possible.
    public var dueAt: Timestamp?

    /// A fulfilment from its fields (checked by ``check()``).
    public init(
        type: Kind, phone: String? = nil, address: Address? = nil, table: String? = nil, dueAt: Timestamp? = nil
    ) {
        self.type = type
        self.phone = phone
        self.address = address
        self.table = table
        self.dueAt = dueAt
    }

    /// A pickup as soon as possible: every order written before fulfilments existed.
    public static let pickup = Fulfilment(type: .pickup)

    /// Throws a `validation` naming the field unless the type has what it needs (a delivery a phone and an
    /// address, a dine-in a table) and every text is printable and within its length.
    public func check() throws(OrderError) {
        func text(_ value: String?, _ field: String, max: Int) throws(OrderError) {
            guard let value else { return }
            if let refusal = ShopText.refusal(value, field: field, characters: 1...max, bytes: max * 4) {
                throw refusal
            }
        }
        try text(phone, "fulfilment.phone", max: 40)
        try text(address?.street, "fulfilment.address.street", max: 200)
        try text(address?.postcode, "fulfilment.address.postcode", max: 20)
        try text(address?.city, "fulfilment.address.city", max: 100)
        try text(address?.notes, "fulfilment.address.notes", max: 200)
        try text(table, "fulfilment.table", max: 20)
        switch type {
        case .delivery:
            guard phone != nil else {
                throw .validation(
                    field: "fulfilment.phone", allowed: ["a phone number"], message: "a delivery needs a phone number")
            }
            guard address != nil else {
                throw .validation(
                    field: "fulfilment.address", allowed: ["{street, postcode, city, notes?}"],
                    message: "a delivery needs an address")
            }
        case .dinein:
            guard table != nil else {
                throw .validation(field: "fulfilment.table", allowed: ["a table"], message: "dine-in needs a table")
            }
        case .pickup: break
        }
    }
}
