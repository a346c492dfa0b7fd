/**
 * Allocator settings for a process that embeds chDB and runs for long (the sink, `npm start`).
 *
 * chDB is built without jemalloc, so the engine's column buffers, insert blocks and merge buffers go
 * through glibc malloc. Left at its defaults glibc keeps freed memory in the process: one arena per
 * busy thread (up to 8 per core: the engine's pool threads, libuv's, V8's) and an mmap threshold
 * that rises after every large free, so multi-megabyte blocks later come from the arenas and stay
 * there. Measured in the 10-minute soak at 100,000 ticks/s (samples after minute 2): the sink's RSS
 * then averaged 714 MB, swung between 596 and 860 MB and followed its backlog; with two arenas and a
 * fixed 256 KiB mmap threshold (large buffers are mapped and unmapped, so freeing them returns the
 * memory) it averaged 529-579 MB over four runs, between 455 and 754 MB, and a 20-minute run showed
 * it level off (per-minute means 516-620 MB, flat from minute 10 on).
 * glibc reads these variables when the process starts, so they have to be in the
 * environment the process is started with: the benchmark harness forks its sink with them, the
 * `npm start` script sets them, and an operator running the sink on embedded chDB should too.
 */
export const EMBEDDED_ENGINE_ALLOCATOR_ENV: Readonly<Record<string, string>> = Object.freeze({
  MALLOC_ARENA_MAX: '2',
  MALLOC_MMAP_THRESHOLD_: '262144',
});
