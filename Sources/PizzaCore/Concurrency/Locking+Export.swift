/// ``Locked`` lives in its own module so that the SQLite layer, below the domain, locks with it too; every module
/// that imports the domain sees it as before.
@_exported public import Locking
