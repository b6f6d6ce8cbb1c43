import PizzaCore
import Testing

@Suite("A device role's rights, as CONTRACT section 15 lists them")
struct DeviceRoleTests {
    @Test(
        "each role has exactly its rights",
        arguments: [
            (DeviceRole.till, "menu create place cancel read"),
            (.kitchen, "advance read events"),
            (.reader, "read events"),
            (.platform, "create cancel read"),
        ])
    func rights(role: DeviceRole, listed: String) {
        let expected = Set(listed.split(separator: " ").map { DeviceRole.Right(rawValue: String($0))! })
        #expect(role.rights == expected)
        for right in DeviceRole.Right.allCases { #expect(role.may(right) == expected.contains(right)) }
    }
}
