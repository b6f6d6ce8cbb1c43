#include <malloc.h>

/* The test process allocates from glibc's main arena only, set before any thread starts.
 *
 * Foundation's Process.run() on Linux (Swift 6.3.1) reads /proc/self/fd before every spawn and copies each entry's
 * whole 256-byte d_name, past the end of the record readdir(3) returned (swift-corelibs-foundation, fixed after 6.3
 * in "Process.run() on Linux crashes intermittently: buffer over-read in findMaximumOpenFromProcSelfFD()"). When
 * the directory buffer ends a thread arena's mapped part, the copy reads the next, unmapped page and the whole test
 * process dies (SIGSEGV in memcpy): once in a few suite runs here. The main arena grows the heap with 128 KiB to
 * spare and keeps that much when it trims, so a 256-byte over-read past a directory buffer stays in mapped memory.
 * pizzad itself never spawns through Process: this is the tests' (and only their) allocator setting. */
__attribute__((constructor)) static void pizzad_tests_one_malloc_arena(void) { mallopt(M_ARENA_MAX, 1); }
