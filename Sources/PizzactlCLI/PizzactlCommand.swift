import ArgumentParser

/// A pizzactl command below the root: it reads the global options (`--socket`, `--json`, `--timeout`) from the
/// root command, where argument-parser parses them wherever they were written.
protocol PizzactlCommand {
    /// The root command, as `@ParentCommand var pizzactl: Pizzactl` gives it.
    var pizzactl: Pizzactl { get }
}

extension PizzactlCommand {
    var global: GlobalOptions { pizzactl.global }
}
