import PizzaCore
import Testing

@Suite("A device role's rights, as CONTRACT sections 15, 17 and 18 list them")
struct DeviceRoleTests {
    @Test(
        "each role has exactly its rights",
        arguments: [
            (DeviceRole.till, "menu create place cancel read pay fulfil"),
            (.kitchen, "advance read events availability"),
            (.reader, "read events"),
            (.platform, "create cancel read pay fulfil"),
            (.manager, "menu create place cancel read events pay fulfil discount refund availability reports"),
        ])
    func rights(role: DeviceRole, listed: String) {
        let expected = Set(listed.split(separator: " ").map { DeviceRole.Right(rawValue: String($0))! })
        #expect(role.rights == expected)
        for right in DeviceRole.Right.allCases { #expect(role.may(right) == expected.contains(right)) }
    }
}
