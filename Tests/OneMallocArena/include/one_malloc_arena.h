/* Nothing to call: the library sets the test process's allocator up as it loads (one_malloc_arena.c). */
