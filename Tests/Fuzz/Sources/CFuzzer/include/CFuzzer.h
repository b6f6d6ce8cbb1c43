#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver, for programs with their own main (SwiftPM executables): see llvm.org/docs/LibFuzzer.html.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*UserCb)(const uint8_t *Data, size_t Size));
