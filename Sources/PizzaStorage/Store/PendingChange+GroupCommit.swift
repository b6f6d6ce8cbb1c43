public import PizzaCore
public import SQLite

/// An order change is the writer's write as it is: the group commit runs it, then tells it, with no wrapper.
extension PendingChange: GroupCommitWrite where Store == SQLiteOrderStore {}

/// So is a change that belongs to no order.
extension PendingShopChange: GroupCommitWrite where Store == SQLiteOrderStore {}
