/**
 * Preloaded into every Node.js process of a benchmarked platform (NODE_OPTIONS=--import, by
 * bench/memory.ts only): on SIGUSR2 the process writes its `process.memoryUsage()` and V8 heap
 * spaces as JSON to `${TTS_BENCH_MEMORY_DIR}/<pid>.json`. Nothing else; plain JavaScript so it
 * loads before any TypeScript loader.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import v8 from 'node:v8';

const dir = process.env['TTS_BENCH_MEMORY_DIR'];
if (dir) {
  process.on('SIGUSR2', () => {
    const spaces = Object.fromEntries(v8.getHeapSpaceStatistics().map((s) => [s.space_name, s.space_used_size]));
    writeFileSync(join(dir, `${process.pid}.json`), JSON.stringify({ ...process.memoryUsage(), spaces, argv: process.argv.slice(1) }));
  });
}
