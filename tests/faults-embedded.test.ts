/**
 * Fault injection on the embedded default (issue 16, item 7): the platform as `npm start` runs it
 * (the launcher: a control process with the scheduler and the facade on the embedded PGlite and
 * the in-process queue, and an inference node process), driven over its HTTP API. Faults: every
 * process killed with SIGKILL while jobs wait, then a restart; DATA_DIR filled up (a small tmpfs
 * mounted on it; mounting needs root, without it that test is skipped and says so). After each,
 * every job submitted reaches a final state, failures carry a catalogue code, and each completed
 * job has exactly one `completed` event in the database (read once the platform has stopped). The
 * figures are printed ("fault figures: ...") and recorded in docs/reliability.md.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { nodeArgsFor } from '@tts/common';
import { openEmbeddedDatabases } from '@tts/common/data';
import { fillOrSkip, mountTmpfs, unmount } from './support/disk.js';
import { FaultLedger, type JobOutcome } from './support/faults.js';
import { postJson, waitFor } from './support/platform.js';
import { alive, descendants, freePort } from './support/processes.js';

const TEXT = 'An embedded platform keeps its jobs through a crash. ';
/** Generous: a loaded two-core machine runs this beside other tests. */
const SETTLE_MS = 150_000;

describe('faults on the embedded platform (launcher, PGlite, in-process queue)', { timeout: 900_000 }, () => {
  let dataDir: string;
  let mounted = false;
  const env: NodeJS.ProcessEnv = { ...process.env };
  let launcher: ChildProcess | undefined;
  let output = '';
  let base: string;
  let apiKey: string;

  const launch = async (): Promise<void> => {
    output = '';
    const child = spawn(process.execPath, nodeArgsFor('services/launcher/src/main.ts'), { env, stdio: ['ignore', 'pipe', 'pipe'] });
    launcher = child;
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    await waitFor(() => output.includes('"platform ready"'), 120_000, `platform ready:\n${output.slice(-2000)}`);
  };
  /** SIGTERM, then the launcher stops its processes; resolves once it exited. */
  const stopGracefully = async (): Promise<void> => {
    if (!launcher || launcher.exitCode !== null || launcher.signalCode !== null) return;
    const done = once(launcher, 'exit');
    launcher.kill('SIGTERM');
    await done;
  };
  const submit = (ledger: FaultLedger, i: number) =>
    ledger.submit(
      async () => {
        const res = await postJson(`${base}/api/jobs/tts`, { text: `${TEXT.repeat(3)} ${ledger.fault} ${i}.`, voice: 'flite:slt' }, { 'x-api-key': apiKey });
        const body = (await res.json()) as { job_id?: string; code?: string };
        if (res.status !== 202 || body.job_id === undefined) throw new Error(body.code ?? `HTTP ${res.status}`);
        return body.job_id;
      },
      (err) => (err instanceof Error && /^[A-Z_]+$/.test(err.message) ? err.message : `transport: ${String(err)}`),
    );
  const outcome = async (jobId: string): Promise<JobOutcome | undefined> => {
    const res = await fetch(`${base}/api/jobs/${jobId}`, { headers: { 'x-api-key': apiKey }, signal: AbortSignal.timeout(5000) });
    if (res.status !== 200) return undefined;
    const job = (await res.json()) as { status: string; attempts: number; error: { code?: string } | null };
    // Completions are counted from the database once the platform has stopped (completedEvents below).
    return { state: job.status, completedEvents: job.status === 'completed' ? 1 : 0, errorCode: job.error?.code, retried: job.attempts > 1 };
  };
  /** `completed` events per job, read from the embedded database (the platform must be stopped). */
  const completedEvents = async (): Promise<Map<string, number>> => {
    const store = await openEmbeddedDatabases(dataDir, ['public']);
    try {
      const rows = await store.databases.get('public')!.query<{ job_id: string; n: number }>(
        "SELECT job_id, count(*) FILTER (WHERE kind = 'completed')::integer AS n FROM job_events GROUP BY job_id",
      );
      return new Map(rows.map((r) => [r.job_id, r.n]));
    } finally {
      await store.close();
    }
  };
  /** Every completed job of the ledger has one `completed` event, every other job none. */
  const expectOneCompletionEach = async (ledger: FaultLedger): Promise<void> => {
    const counts = await completedEvents();
    for (const id of ledger.jobIds) assert.equal(counts.get(id) ?? 0, ledger.states.get(id) === 'completed' ? 1 : 0, `${ledger.fault}: completed events of ${id}`);
  };

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'tts-faults-embedded-'));
    mounted = mountTmpfs(dataDir, 192);
    Object.assign(env, {
      PORT: String(await freePort()),
      SCHEDULER_GRPC_PORT: String(await freePort()),
      METRICS_PORT: '0',
      TTS_NODES: '1',
      TTS_ENGINES: 'flite',
      TTS_FLITE_WORKERS: '1',
      TTS_DEFAULT_VOICE: 'flite:slt',
      DATA_DIR: dataDir,
      SCHEDULER_QUEUE_LEASE_MS: '2000',
    });
    for (const name of ['DATABASE_URL', 'REDIS_URL', 'TTS_ADMIN_KEY', 'SCHEDULER_DATABASE_URL']) delete env[name];
    base = `http://127.0.0.1:${env['PORT']}`;
    await launch();
    const adminKey = /Administrator key \(shown once; stored in [^)]+\): (\S+)/.exec(output)?.[1];
    assert.ok(adminKey, 'admin key printed on the first start');
    const created = await postJson(`${base}/api/auth/keys`, { name: 'faults', tier: 'enterprise', rate_limit_per_minute: 100_000 }, { 'x-admin-key': adminKey });
    assert.equal(created.status, 201);
    apiKey = ((await created.json()) as { api_key: string }).api_key;
  });

  after(async () => {
    await stopGracefully();
    if (mounted) unmount(dataDir);
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** Ledgers whose completions the last test counts in the database (once the platform stopped). */
  const ledgers: FaultLedger[] = [];

  test('DATA_DIR full: submissions are refused with a code; once space is freed the platform serves again', async (t) => {
    const filler = fillOrSkip(t, dataDir, mounted);
    if (filler === undefined) return;
    // The embedded database lives in DATA_DIR too: with no space, a submission is refused (503
    // JOB_STORE_UNAVAILABLE) or, when it got through, ends with a code: never accepted and lost.
    const full = new FaultLedger('embedded DATA_DIR full');
    for (let i = 0; i < 6; i++) await submit(full, i);
    const during = await full.settle(outcome, SETTLE_MS);
    assert.equal(during.submitted + (during.refused['JOB_STORE_UNAVAILABLE'] ?? 0), 6, `refused with JOB_STORE_UNAVAILABLE or accepted: ${JSON.stringify(during)}`);
    rmSync(filler);
    // Recovery by itself: with space again, new jobs are accepted and complete.
    const freed = new FaultLedger('embedded DATA_DIR freed');
    await waitFor(async () => (await submit(freed, 100)) !== undefined, 30_000, 'a submission accepted once space is freed');
    for (let i = 0; i < 6; i++) await submit(freed, i);
    const figures = await freed.settle(outcome, SETTLE_MS);
    assert.equal(figures.completed, figures.submitted, `the jobs submitted after the space was freed complete: ${JSON.stringify(figures)}`);
    ledgers.push(full, freed);
  });

  test('SIGKILL of every process with jobs queued, then a restart: every job completes once', async (t) => {
    const ledger = new FaultLedger('embedded SIGKILL');
    for (let i = 0; i < 24; i++) await submit(ledger, i);
    assert.equal(ledger.jobIds.length, 24);
    const unfinished = (await Promise.all(ledger.jobIds.map(outcome))).filter((o) => o?.state !== 'completed').length;
    assert.ok(unfinished >= 5, `jobs wait in the queue when the platform is killed: ${unfinished}`);
    const pids = [launcher!.pid!, ...descendants(launcher!.pid!)];
    for (const pid of pids) process.kill(pid, 'SIGKILL');
    await waitFor(() => pids.every((pid) => !alive(pid)), 20_000, 'every process gone');
    const restarting = Date.now();
    await launch();
    t.diagnostic(`restarted in ${Date.now() - restarting} ms`);
    for (let i = 24; i < 30; i++) await submit(ledger, i);
    const figures = await ledger.settle(outcome, SETTLE_MS);
    assert.equal(figures.completed, figures.submitted, `every job completes: ${JSON.stringify(figures)}`);
    ledgers.push(ledger);
    // Exactly one completion each, for every scenario, as the database recorded it.
    await stopGracefully();
    for (const l of ledgers) await expectOneCompletionEach(l);
  });
});
