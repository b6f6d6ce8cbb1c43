import CFuzzer
import Glibc

// libFuzzer's driver runs the loop; `fuzz` is the per-input check (Fuzz.swift).
var argc = CommandLine.argc
var argv = CommandLine.unsafeArgv
let status = withUnsafeMutablePointer(to: &argv) { argvPointer in
    argvPointer.withMemoryRebound(to: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?.self, capacity: 1) {
        rebound in
        LLVMFuzzerRunDriver(&argc, rebound) { data, size in fuzz(data.map(UnsafeRawPointer.init), size) }
    }
}
exit(status)
