import PizzaCore

extension BoardSettings {
    /// `board.*`: where the page listens, whether names show, and each status's warn and late marks (warn below
    /// late).
    init(reading values: ConfigurationValues) throws(ConfigurationError) {
        self.init()
        listen = try values.setting(.boardListen) { ListenAddress(parsing: $0) }
        showCustomer = try values.defaulted(.boardShowCustomer) { Bool($0.lowercased()) }
        for entry in ConfigurationSchema.boardThresholdDefaults {
            guard let status = OrderStatus(rawValue: entry.status) else { continue }
            let warnKey = ConfigurationKey.boardThreshold(entry.status, late: false)
            let lateKey = ConfigurationKey.boardThreshold(entry.status, late: true)
            let warn = try values.integer(warnKey)
            let late = try values.integer(lateKey)
            guard warn < late else {
                throw ConfigurationError(
                    source: values.source(warnKey), key: warnKey.path, problem: "\(warn) is not below the late mark",
                    allowed: "fewer seconds than \(lateKey.path) (\(late))")
            }
            thresholds[status] = (warn, late)
        }
    }
}
