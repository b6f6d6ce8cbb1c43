import Foundation
import PizzaTesting

extension PizzadProcess {
    /// Runs pizzactl against this daemon, as a user would type it; as `user` (and `group`) through `setpriv`.
    @discardableResult
    func pizzactl(_ arguments: [String], as user: String? = nil, group: String? = nil) throws -> CommandResult {
        // Sanitizer builds of pizzad share two cores with other suites' loads: give answers more than the usual 10 s.
        let common = ["--socket", socket] + (sanitizerIsActive ? ["--timeout", "120"] : [])
        if let user {
            var setpriv = ["--reuid=\(user)", "--regid=\(group ?? user)", "--clear-groups", Binaries.pizzactl] + common
            setpriv += arguments
            return try run("setpriv", setpriv)
        }
        return try run(Binaries.pizzactl, common + arguments)
    }
}
