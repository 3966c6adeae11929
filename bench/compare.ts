/**
 * Compares runs of one benchmark before and after a change:
 *   node --conditions=@tts/source --import tsx bench/compare.ts --before a1.json a2.json a3.json --after b1.json b2.json b3.json
 * Prints a Markdown table of every timing and throughput figure: the spread (min-max) of the runs
 * before, the runs after (their median), and "worse" where the median after lies outside the spread
 * before in the bad direction. Counts, sizes and notes are left out.
 */
import { readFileSync } from 'node:fs';

type Direction = 'lower' | 'higher';

/** Which way is better for a figure, from its name; undefined for figures that are not measurements. */
function directionOf(path: string): Direction | undefined {
  const leaf = path.split('.').pop() ?? '';
  if (/(^|_)rps$|per_sec|throughput/.test(leaf)) return 'higher';
  if (/(_ms|_p50|_p95|_p99|^p50$|^p95$|^p99$|rtf|over_direct|^http$|^facade$|^grpc$|added)/.test(leaf)) return 'lower';
  return undefined;
}

/** Flattens a result into `path -> number`, naming list items by their identifying fields. */
function flatten(value: unknown, path: string, out: Map<string, number>): void {
  if (typeof value === 'number') {
    out.set(path, value);
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => {
      const o = item as Record<string, unknown>;
      const id = ['voice', 'text', 'concurrency', 'format']
        .filter((k) => typeof o?.[k] === 'string' || typeof o?.[k] === 'number')
        .map((k) => String(o[k]))
        .join('/');
      flatten(item, `${path}[${id || i}]`, out);
    });
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) if (k !== 'machine' && k !== 'loadavg_end') flatten(v, path ? `${path}.${k}` : k, out);
  }
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

function load(files: readonly string[]): Map<string, number>[] {
  return files.map((f) => {
    const out = new Map<string, number>();
    flatten(JSON.parse(readFileSync(f, 'utf8')), '', out);
    return out;
  });
}

const args = process.argv.slice(2);
const split = args.indexOf('--after');
if (args[0] !== '--before' || split < 2 || split === args.length - 1) {
  process.stderr.write('usage: compare.ts --before <json>... --after <json>...\n');
  process.exit(2);
}
const before = load(args.slice(1, split));
const after = load(args.slice(split + 1));
const fmt = (x: number): string => (Math.abs(x) >= 100 ? x.toFixed(0) : Math.abs(x) >= 1 ? x.toFixed(2) : x.toPrecision(3));

const rows: string[] = ['| figure | before (min-max) | after (runs) | after median |  |', '|---|---|---|---|---|'];
let worse = 0;
for (const path of before[0]!.keys()) {
  const dir = directionOf(path);
  if (dir === undefined) continue;
  const b = before.map((m) => m.get(path)).filter((x): x is number => x !== undefined);
  const a = after.map((m) => m.get(path)).filter((x): x is number => x !== undefined);
  if (b.length === 0 || a.length === 0) continue;
  const lo = Math.min(...b);
  const hi = Math.max(...b);
  const med = median(a);
  const bad = dir === 'lower' ? med > hi : med < lo;
  if (bad) worse++;
  rows.push(`| ${path} | ${fmt(lo)}-${fmt(hi)} | ${a.map(fmt).join(', ')} | ${fmt(med)} | ${bad ? 'worse' : ''} |`);
}
process.stdout.write(`${rows.join('\n')}\n\n${worse} of ${rows.length - 2} figures worse than the spread before.\n`);
