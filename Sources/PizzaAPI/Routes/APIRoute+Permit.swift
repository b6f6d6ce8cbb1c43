import PizzaHTTPEdges

extension APIRoute {
    /// The one role check: the device `identity` may use this route, or 401 (none) / 403 (its role may not).
    func permit(_ identity: DeviceIdentity?) throws {
        guard let right else { return }
        guard let identity else { throw Problem.unauthenticated("no device authenticated") }
        guard identity.may(right) else {
            throw Problem.denied(
                "device \(identity.name) is a \(identity.role.rawValue), which may not \(right.rawValue)")
        }
    }
}
