extension ChainBench {
    /// The steps as one table: rates, the centre's CPU per event against COPY's, lags, errors.
    static func table(_ phases: [Phase]) {
        Bench.table(
            [
                "load", "shops", "orders/s fed", "events", "events/batch", "central events/s", "PostgreSQL µs/event",
                "COPY µs/event",
                "× COPY", "COPY into the centre µs/event", "× COPY into the centre", "COPY beside µs/event",
                "× COPY beside", "orders/s fed beside",
                "PgBouncer µs/event", "lag p50 ms", "p99", "max", "worst shop p99", "waiting clients max",
                "shipper errors",
            ],
            phases.map { phase in
                [
                    phase.name, "\(phase.shops)", phase.fedPerSecond > 0 ? Bench.format(phase.fedPerSecond, 0) : "-",
                    "\(phase.events)",
                    Bench.format(Double(phase.events) / Double(max(phase.batches, 1)), 1),
                    Bench.format(phase.perSecond, 0),
                    Bench.format(phase.postgresMicroseconds, 0),
                    phase.copyCPU < 0.05 ? "-" : Bench.format(phase.copyMicroseconds, 0),
                    phase.copyCPU < 0.05
                        ? "-" : Bench.format(phase.postgresMicroseconds / max(phase.copyMicroseconds, 0.001), 2),
                    phase.intoCentreCPU < 0.05 ? "-" : Bench.format(phase.intoCentreMicroseconds, 0),
                    phase.intoCentreCPU < 0.05
                        ? "-" : Bench.format(phase.postgresMicroseconds / max(phase.intoCentreMicroseconds, 0.001), 2),
                    phase.besideCPU < 0.05 ? "-" : Bench.format(phase.besideMicroseconds, 0),
                    phase.besideCPU < 0.05
                        ? "-" : Bench.format(phase.postgresMicroseconds / max(phase.besideMicroseconds, 0.001), 2),
                    phase.besideCPU < 0.05 ? "-" : Bench.format(phase.besideFedPerSecond, 0),
                    Bench.format(phase.bouncerMicroseconds, 0), Bench.format(phase.lag.p50, 1),
                    Bench.format(phase.lag.p99, 1), Bench.format(phase.lag.max, 0),
                    Bench.format(phase.lag.worstShopP99, 1), "\(phase.waitingMax)", "\(phase.errors)",
                ]
            })
    }
}
