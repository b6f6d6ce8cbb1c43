import PizzaDaemon
import PizzactlCLI

// Started as `pizzactl` (the package installs pizzactl as a link to this binary): the operator's command line.
if CommandLine.arguments.first?.split(separator: "/").last == "pizzactl" {
    await PizzactlProgram.main()
} else {
    // Swift tasks run on the same event loop threads as the socket, so a request does not hop between two thread
    // pools on its way through (measured: lower latency per request on a 2-core machine, see docs/PERFORMANCE.md).
    // A start where it did not take logs a warning (TasksOnEventLoops).
    TasksOnEventLoops.install()
    await PizzadCommand.runFromCommandLine()
}
