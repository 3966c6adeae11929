/**
 * The README's settings tables stay true to the code: every environment variable a package, a
 * script or the container image reads is documented, every documented variable is read somewhere,
 * and a default the README states as one value is the one the code falls back to (read from the
 * reader's literal fallback, and by loading each process's config with and without it).
 * Variables only the tests read are in the README's own "test variable" table.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import { loadTelemetryConfig } from '@tts/common/telemetry';
import { loadFacadeConfig } from '@tts/facade';
import { loadNodeConfig } from '@tts/inference-node';
import { loadSchedulerConfig } from '@tts/scheduler';
import { filesUnder, scanEnvReads, type EnvRead } from './support/env-reads.js';

const root = new URL('..', import.meta.url).pathname;

/** Where the code that reads the environment lives (bench/ has its own knobs, in bench/README.md). */
const SCANNED = ['services', 'facade', 'scripts', 'deploy', 'web', 'proto', 'tests'];
/** Test code: specs, test support, fixtures and the test scripts. */
const isTestCode = (file: string): boolean => /(^|\/)(tests|fixtures)\/|\.test\.[a-z]+$|(^|\/)testing(\/|\.[a-z]+$)|(^|[/-])test\.sh$/.test(file);
/** The module that defines the readers: it reads whatever name it is given. */
const READERS_MODULE = 'services/common/src/config/env.ts';
/** Documented defaults the process configs can only take with other settings (the TLS files) set. */
const ONLY_WITH_OTHERS = new Set(['TTS_GRPC_TLS_CLIENT_AUTH', 'TTS_GRPC_TLS_SERVER_NAME']);

/** One row of a README settings table. */
interface Row {
  readonly names: readonly string[];
  /**
   * Each name's default when the README states it as one literal value: `value`, maybe with a remark
   * in parentheses; not a description (`<DATA_DIR>/models`) nor another variable (`DATABASE_URL`).
   */
  readonly defaults: ReadonlyMap<string, string>;
  readonly line: number;
}

/** The rows of every README table whose first header cell is `header`. */
function tablesOf(markdown: string, header: string): Row[] {
  const rows: Row[] = [];
  let inTable = false;
  markdown.split('\n').forEach((text, i) => {
    if (!text.startsWith('|')) {
      inTable = false;
      return;
    }
    const cells = text.slice(1, text.trimEnd().endsWith('|') ? text.trimEnd().length - 1 : undefined).split(/ \| /).map((c) => c.trim());
    if (cells[0] === header) {
      inTable = true;
      return;
    }
    if (!inTable || /^\|[-:| ]+$/.test(text.trim())) return;
    const names = [...(cells[0] ?? '').matchAll(/`([^`]+)`/g)].map((m) => (m[1] ?? '').replace(/<[^>]+>/g, '*'));
    const parts = (cells[1] ?? '').split(' / ');
    const defaults = new Map<string, string>();
    names.forEach((name, k) => {
      const cell = names.length === 1 ? cells[1] : parts.length === names.length ? parts[k] : undefined;
      const literal = /^`([^`]*)`(?:\s*\([^)]*\))?$/.exec(cell?.trim() ?? '');
      const value = literal?.[1];
      if (value !== undefined && !value.includes('<') && !/^[A-Z][A-Z0-9_]*$/.test(value)) defaults.set(name, value);
    });
    rows.push({ names, defaults, line: i + 1 });
  });
  return rows;
}

/** Whether a documented name (`OTEL_*`, `TTS_*_IDLE_UNLOAD_SEC`) covers a read one (which may hold `*` itself). */
function covers(documented: string, read: string): boolean {
  if (documented === read) return true;
  return new RegExp(`^${documented.replace(/\*/g, '[A-Z0-9_]+')}$`).test(read);
}

function sameValue(a: string, b: string): boolean {
  return a === b || (a.trim() !== '' && b.trim() !== '' && Number.isFinite(Number(a)) && Number(a) === Number(b));
}

const readme = readFileSync(join(root, 'README.md'), 'utf8');
const settings = tablesOf(readme, 'variable');
const testSettings = tablesOf(readme, 'test variable');
const documented = settings.flatMap((r) => r.names);
const documentedForTests = testSettings.flatMap((r) => r.names);

const files = SCANNED.flatMap((dir) => filesUnder(root, dir, (f) => /\.(ts|tsx|mjs|js|sh)$/.test(f)));
const scan = scanEnvReads(root, files);
const fileOf = (read: EnvRead): string => read.at.replace(/:\d+$/, '');
const productReads = scan.reads.filter((r) => !isTestCode(fileOf(r)));
const testReads = scan.reads.filter((r) => isTestCode(fileOf(r)));
const namesOf = (reads: readonly EnvRead[]): string[] => [...new Set(reads.map((r) => r.name))].sort();
const where = (name: string, reads: readonly EnvRead[]): string => reads.filter((r) => r.name === name).map((r) => r.at).join(', ');

describe('README settings tables', () => {
  it('the scan finds every process config reader and follows every name to its variable', () => {
    for (const name of ['PORT', 'SCHEDULER_NODE_TIMEOUT_MS', 'NODE_HEARTBEAT_MS', 'TTS_NODES', 'OTEL_SDK_DISABLED', 'TTS_GRPC_TLS_CERT', 'TTS_MODEL_HUB_TOKEN']) {
      assert.ok(productReads.some((r) => r.name === name), `${name} not found: the scan misses a reader`);
    }
    const unresolved = scan.unresolved.filter((u) => !u.startsWith(`${READERS_MODULE}:`));
    assert.deepEqual(unresolved, [], 'environment reads whose variable the scan cannot name: give the name as a string or a constant');
  });

  it('documents every variable the product reads, once', () => {
    const missing = namesOf(productReads).filter((name) => !documented.some((d) => covers(d, name)));
    assert.deepEqual(missing.map((n) => `${n} (${where(n, productReads)})`), [], 'read but not in a README settings table');
    const twice = documented.filter((name, i) => documented.indexOf(name) !== i);
    assert.deepEqual(twice, [], 'documented in two rows');
  });

  it('documents no variable the product does not read', () => {
    const product = namesOf(productReads);
    const stale = settings.flatMap((r) => r.names.filter((d) => !product.some((name) => covers(d, name))).map((d) => `${d} (README.md:${r.line})`));
    assert.deepEqual(stale, [], 'in a README settings table but read nowhere');
  });

  it('lists the variables only the tests read in the test variable table, and nothing else there', () => {
    const testOnly = namesOf(testReads).filter((name) => !documented.some((d) => covers(d, name)));
    const missing = testOnly.filter((name) => !documentedForTests.includes(name));
    assert.deepEqual(missing.map((n) => `${n} (${where(n, testReads)})`), [], 'read by tests but not in the README test variable table');
    const stale = documentedForTests.filter((name) => !testOnly.includes(name));
    assert.deepEqual(stale, [], 'in the test variable table but not read by the tests only (read nowhere, or by the product: the main table)');
  });

  it('states the default each reader falls back to', () => {
    const stated = new Map([...settings, ...testSettings].flatMap((r) => [...r.defaults]));
    const wrong = scan.reads
      .filter((r) => r.fallback !== undefined && stated.has(r.name) && !sameValue(stated.get(r.name) ?? '', r.fallback))
      .map((r) => `${r.name}: README says ${JSON.stringify(stated.get(r.name))}, ${r.at} falls back to ${JSON.stringify(r.fallback)}`);
    assert.deepEqual(wrong, []);
  });

  it('each process config comes out the same with the documented default set as without it', () => {
    const loaders: Record<string, (env: NodeJS.ProcessEnv) => unknown> = {
      facade: loadFacadeConfig,
      scheduler: loadSchedulerConfig,
      node: loadNodeConfig,
      telemetry: (env) => loadTelemetryConfig('process', env),
    };
    const checked: string[] = [];
    const wrong: string[] = [];
    for (const row of settings) {
      for (const [name, value] of row.defaults) {
        if (name.includes('*') || ONLY_WITH_OTHERS.has(name)) continue;
        checked.push(name);
        for (const [process, load] of Object.entries(loaders)) {
          let same: boolean;
          try {
            same = isDeepStrictEqual(load({}), load({ [name]: value }));
          } catch (err) {
            wrong.push(`${name}=${value}: the ${process} config refuses it (${(err as Error).message})`);
            continue;
          }
          if (!same) wrong.push(`${name}=${value} (README.md:${row.line}) changes the ${process} config: its default differs`);
        }
      }
    }
    assert.ok(checked.length >= 50, `only ${checked.length} documented defaults are single values`);
    assert.deepEqual(wrong, []);
  });
});

describe('the environment scan', () => {
  it('follows names through constants, objects, templates and loops, and reports what it cannot follow', () => {
    const dir = mkdtempSync(join(tmpdir(), 'env-scan-'));
    const write = (file: string, text: string): void => {
      mkdirSync(dirname(join(dir, file)), { recursive: true });
      writeFileSync(join(dir, file), text);
    };
    try {
      write('a/names.ts', "export const SHARED_NAME = 'FROM_OTHER_MODULE';\n");
      write(
        'a/config.ts',
        [
          "const LOCAL = 'FROM_CONSTANT';",
          "const FILES = { cert: 'FROM_OBJECT' } as const;",
          "envInt(env, 'LITERAL', 1_000);",
          'envString(env, LOCAL, "x");',
          'envOptional(env, FILES.cert);',
          'envBool(env, SHARED_NAME, true);',
          "envEnum(env, 'CHOICE', ['a', 'b'], 'b');",
          "for (const engine of ['one']) { const variable = `TTS_${engine}_SEC`; envInt(env, variable, 0); }",
          "for (const name of ['LOOP_A', 'LOOP_B']) envOptional(env, name);",
          "const n = Number(process.env['ELEMENT'] ?? 4) + Number(process.env.PROPERTY || 5);",
          "const { DESTRUCTURED: d } = process.env;",
          "const base = { ...process.env }; base['COPY_READ'] ||= 'x'; base['WRITE_ONLY'] = 'y'; delete base['DELETED'];",
          'function f(key: string) { return envOptional(env, key); }',
        ].join('\n'),
      );
      write('a/run.sh', '# ${COMMENTED:-1}\nexport X="${SHELL_READ:-7}"\n');
      const { reads, unresolved } = scanEnvReads(dir, filesUnder(dir, 'a', () => true));
      const found = Object.fromEntries(reads.map((r) => [r.name, r.fallback ?? null]));
      assert.deepEqual(found, {
        LITERAL: '1000',
        FROM_CONSTANT: 'x',
        FROM_OBJECT: null,
        FROM_OTHER_MODULE: 'true',
        CHOICE: 'b',
        'TTS_*_SEC': '0',
        LOOP_A: null,
        LOOP_B: null,
        ELEMENT: '4',
        PROPERTY: '5',
        DESTRUCTURED: null,
        COPY_READ: null,
        SHELL_READ: '7',
      });
      assert.deepEqual(unresolved, ['a/config.ts:13: envOptional(env, key)']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads README tables: several names in a row, patterns, and single-value defaults only', () => {
    const rows = tablesOf(
      ['| variable | default | meaning |', '|---|---|---|', '| `A` / `B` | `1` / `x` | two |', '| `TTS_<ENGINE>_SEC` | `0` | pattern |', '| `C` | `2` with `A`, else `3` | depends |', '| `D` | `1024` (1 KiB) | remark |', '| `E` / `F` | `<DATA_DIR>/x` / `D` | described |', '', '| x |'].join('\n'),
      'variable',
    );
    assert.deepEqual(
      rows.map((r) => [r.names, Object.fromEntries(r.defaults)]),
      [
        [['A', 'B'], { A: '1', B: 'x' }],
        [['TTS_*_SEC'], { 'TTS_*_SEC': '0' }],
        [['C'], {}],
        [['D'], { D: '1024' }],
        [['E', 'F'], {}],
      ],
    );
    assert.ok(covers('OTEL_*', 'OTEL_SDK_DISABLED') && covers('TTS_*_SEC', 'TTS_*_SEC') && !covers('OTEL_*', 'TTS_X'));
  });
});
