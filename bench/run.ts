/**
 * Runs the benchmarks: `npm run bench [name]` (default: all but the ones that run only by name).
 * Results land in bench/results/.
 */
const which = process.argv[2] ?? 'all';
/** Run only when named: `soak` takes 30 minutes by default. */
const byNameOnly = new Set(['soak']);
const suites: Record<string, string> = { foundation: './foundation.ts', batching: './batching.ts', telemetry: './telemetry.ts', routing: './routing.ts', identity: './identity.ts', floor: './transport-floor.ts', watermark: './watermark.ts', reference: './reference.ts', clone: './clone.ts', 'watermark-cost': './watermark-cost.ts', 'web-load': './web-load.ts', encoders: './encoders.ts', 'festival-first-audio': './festival-first-audio.ts', memory: './memory.ts', 'long-text': './long-text.ts', saturation: './saturation.ts', 'opus-complexity': './opus-complexity.ts', 'mp3-quality': './mp3-quality.ts', overload: './overload.ts', 'word-timing': './word-timing.ts', fairness: './fairness.ts', soak: './soak.ts', serving: './serving.ts', streaming: './streaming.ts' };
for (const [name, path] of Object.entries(suites)) {
  if (which === 'all' ? byNameOnly.has(name) : which !== name) continue;
  console.log(`== bench ${name}`);
  await import(path);
}
