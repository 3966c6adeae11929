/**
 * Where the platform's log lines go during tests. With TTS_TEST_LOG_DIR set (scripts/test.sh sets
 * it, and scans the folder for secrets once every test has run: tests/support/secret-scan.ts), the
 * lines of every component a test runs in its own process, and the output of the processes it
 * starts (`recordOutput`), are appended to files there; otherwise they are dropped, unless
 * TEST_LOGS=1 prints them. scripts/test.sh preloads this module into every test process
 * (`--import`); tests/support/platform.ts imports it too.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { setLogSink } from '@tts/common';

/** The folder the logs of the test run are written to, when set. */
export const TEST_LOG_DIR = process.env['TTS_TEST_LOG_DIR'] || undefined;

/** This test process's name in the folder: its test file and pid. */
const ownName = `${path.basename(process.argv[1] ?? 'test').replace(/\.[^.]+$/, '')}-${process.pid}`;

function append(name: string, text: string): void {
  if (TEST_LOG_DIR === undefined) return;
  mkdirSync(TEST_LOG_DIR, { recursive: true, mode: 0o700 });
  appendFileSync(path.join(TEST_LOG_DIR, `${name}.log`), text, { mode: 0o600 });
}

if (TEST_LOG_DIR !== undefined) setLogSink((line) => append(ownName, `${line}\n`));
else if (process.env['TEST_LOGS'] !== '1') setLogSink(() => undefined);

let started = 0;

/** Appends what `streams` (a started process's stdout and stderr) print to the run's logs, as `name`. */
export function recordOutput(name: string, ...streams: Readable[]): void {
  if (TEST_LOG_DIR === undefined) return;
  const file = `${ownName}-${name}-${++started}`;
  for (const s of streams) s.on('data', (d: Buffer) => append(file, d.toString('utf8')));
}
