/**
 * bench/README.md's table of current figures stays whole: every benchmark `npm run bench` knows has
 * a row with its command, every row's command names one, and every row links to a sitting that
 * exists in bench/HISTORY.md.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

const root = new URL('..', import.meta.url).pathname;
const readme = readFileSync(join(root, 'bench/README.md'), 'utf8');
const history = readFileSync(join(root, 'bench/HISTORY.md'), 'utf8');

/** The benchmarks `npm run bench <name>` runs: the keys of `suites` in bench/run.ts. */
function suites(): string[] {
  const source = readFileSync(join(root, 'bench/run.ts'), 'utf8');
  const table = /const suites[^=]*=\s*\{([^}]*)\}/.exec(source)?.[1] ?? '';
  return [...table.matchAll(/'?([\w-]+)'?\s*:\s*'\.\/[\w-]+\.ts'/g)].map((m) => m[1] ?? '');
}

/** GitHub's anchor of each heading (lower case, punctuation dropped, spaces to hyphens, repeats numbered). */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const [, heading = ''] of markdown.matchAll(/^#+ (.+)$/gm)) {
    const slug = heading.trim().toLowerCase().replace(/[^\p{L}\p{N}_\- ]/gu, '').replace(/ /g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    out.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return out;
}

/** The rows of the current figures table: the first table of bench/README.md. */
const rows = readme
  .slice(readme.indexOf('| benchmark |'))
  .split('\n')
  .filter((line, i, all) => line.startsWith('|') && all.slice(0, i).every((l) => l.startsWith('|')))
  .slice(2);

describe('bench/README.md current figures', () => {
  it('has a row for every benchmark, with its command, and no command for a benchmark that does not exist', () => {
    const known = suites();
    assert.ok(known.length >= 20, `bench/run.ts lists ${known.length} benchmarks: the table of suites was not found`);
    const commands = rows.flatMap((row) => [...row.matchAll(/`npm run bench ([\w-]+)`/g)].map((m) => m[1] ?? ''));
    assert.deepEqual(known.filter((name) => !commands.includes(name)), [], 'benchmarks without a row in bench/README.md');
    assert.deepEqual([...new Set(commands.filter((name) => !known.includes(name)))], [], 'rows naming a benchmark bench/run.ts does not have');
  });

  it('links every row to a sitting in HISTORY.md', () => {
    const headings = anchors(history);
    assert.ok(rows.length >= 20);
    const broken = rows.filter((row) => {
      const anchor = /\]\(HISTORY\.md#([^)]+)\)/.exec(row)?.[1];
      return anchor === undefined || !headings.has(anchor);
    });
    assert.deepEqual(broken, [], 'rows whose link finds no sitting in bench/HISTORY.md');
  });
});
