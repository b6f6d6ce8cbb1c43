import PizzaCore

extension BoardSettings {
    /// `board.*`: where the page listens, whether names show, and each status's warn and late marks (warn below
    /// late).
    init(reading values: ConfigurationValues) throws(ConfigurationError) {
        self.init()
        listen = try values.setting("board.listen") { ListenAddress(parsing: $0) }
        showCustomer = try values.defaulted("board.showCustomer") { Bool($0.lowercased()) }
        for entry in ConfigurationSchema.boardThresholdDefaults {
            guard let status = OrderStatus(rawValue: entry.status) else { continue }
            let key = "board.\(entry.status).warnSeconds"
            let warn = try values.integer(key)
            let late = try values.integer("board.\(entry.status).lateSeconds")
            guard warn < late else {
                throw ConfigurationError(
                    source: values.source(key), key: key, problem: "\(warn) is not below the late mark",
                    allowed: "fewer seconds than board.\(entry.status).lateSeconds (\(late))")
            }
            thresholds[status] = (warn, late)
        }
    }
}
