import PizzactlCLI

// pizzactl: the operator's command line for pizzad; its commands are in PizzactlCLI, which pizzad links too (the
// package's pizzactl is a link to pizzad, which runs them when started under that name).
await PizzactlProgram.main()
