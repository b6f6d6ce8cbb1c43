import NIOCore
import NIOPosix
import PizzaDaemon

// Swift tasks run on the same event loop threads as the socket, so a request does not hop between two thread
// pools on its way through (measured: lower latency per request on a 2-core machine, see docs/PERFORMANCE.md).
_ = NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()

await PizzadCommand.runFromCommandLine()
