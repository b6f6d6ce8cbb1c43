/// Every control-socket method but the order operations (those are ``OrderOperation``), each spelled once: the
/// daemon's method table and pizzactl both name them through this type (CONTRACT section 4).
public enum RPCMethod: String, Sendable, CaseIterable {
    case hello = "daemon.hello"
    case status = "daemon.status"
    case menu = "menu.list"
    case metrics = "metrics.get"
    case watch = "events.watch"
    case auditList = "audit.list"
    case auditVerify = "audit.verify"
    case backup = "db.backup"
    case check = "db.check"
    case boardSnapshot = "board.snapshot"
    case replicationStatus = "replication.status"
    case replicationVerify = "replication.verify"
    case deviceAdd = "device.add"
    case deviceList = "device.list"
    case deviceRevoke = "device.revoke"
    case outboxList = "outbox.list"
    case outboxRetry = "outbox.retry"
    case orderPrint = "order.print"
    /// Takes a menu item off or puts it back (CONTRACT section 17).
    case menuSetAvailable = "menu.setAvailable"
    /// The running figures since the last Z (CONTRACT section 18).
    case reportX = "report.x"
    /// Closes the period: the next Z report.
    case reportZ = "report.z"
    /// One Z report by number.
    case reportGet = "report.get"
    /// Z reports, oldest first.
    case reportList = "report.list"
    /// Recomputes a Z report from the audit log.
    case reportVerify = "report.verify"
}
