// Declarations only; libFuzzer provides the code.
