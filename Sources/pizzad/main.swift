import PizzaDaemon

#if canImport(Glibc)
import Glibc
#endif

exit(await Daemon.run(arguments: Array(CommandLine.arguments.dropFirst())))
