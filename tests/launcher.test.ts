/**
 * The one-command start: embedded, the scheduler and the facade in one control process on one
 * embedded database, the node apart, over real gRPC; a request and a job work; SIGTERM stops
 * everything with no process left behind. An install of the old layout (the scheduler's own
 * database under DATA_DIR/scheduler) keeps its jobs.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { alive, commandOf, descendants, freePort, spawnLauncher } from './support/processes.js';
import { postJson, waitFor } from './support/platform.js';
import { callUnary, closeAllClients, schedulerClient } from '@tts/common';
import { openDatabase } from '@tts/common/data';
import { ApiKeyRepository, ApiKeyService, FACADE_MIGRATIONS } from '@tts/facade/testing';
import { start as startScheduler } from '@tts/scheduler';
import { jobSpec, submitJob } from '@tts/scheduler/testing';

/** One variable of a running process's environment, from /proc. */
function environOf(pid: number, name: string): string | undefined {
  const entry = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').find((e) => e.startsWith(`${name}=`));
  return entry?.slice(name.length + 1);
}

/** A launcher of the embedded platform (one node, one festival process) on free ports in its own DATA_DIR. */
interface Launched {
  readonly child: ReturnType<typeof spawnLauncher>['child'];
  readonly output: () => string;
  readonly port: number;
  readonly dataDir: string;
}

/** Runs `body` with a fresh launcher; kills it if `body` left it running and removes its DATA_DIR. */
async function withLauncher(prefix: string, body: (l: Launched) => Promise<void>): Promise<void> {
  const port = await freePort();
  const schedulerPort = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), prefix));
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), SCHEDULER_GRPC_PORT: String(schedulerPort), TTS_NODES: '1', TTS_FESTIVAL_PROCESSES: '1', DATA_DIR: dataDir };
  delete env['DATABASE_URL'];
  delete env['REDIS_URL'];
  delete env['TTS_ADMIN_KEY'];
  const { child, output } = spawnLauncher(env);
  try {
    await body({ child, output, port, dataDir });
  } finally {
    if (child.exitCode === null) {
      child.kill('SIGKILL');
      await once(child, 'exit');
    }
    rmSync(dataDir, { recursive: true, force: true, maxRetries: 5 });
  }
}

/** SIGTERM: the launcher exits 0 and none of its processes is left. */
async function stopsCleanly({ child, output }: Launched): Promise<void> {
  const pids = descendants(child.pid!);
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const [code] = (await exited) as [number | null];
  assert.equal(code, 0, output().slice(-2000));
  await waitFor(() => pids.every((p) => !alive(p)), 10_000, 'no orphan processes');
}

test('launcher starts the embedded platform (control process + node) and stops it cleanly on SIGTERM', { timeout: 120_000 }, () => withLauncher('tts-launcher-', async (launched) => {
  const { child, output, port, dataDir } = launched;
  await waitFor(() => output().includes('"platform ready"'), 90_000, 'platform ready');
  const pids = descendants(child.pid!);
  const commands = pids.map(commandOf);
  assert.ok(commands.some((c) => c.includes('launcher/src/control')), 'control process (scheduler + facade)');
  assert.ok(commands.some((c) => c.includes('inference-node/src/main')), 'node process');
  assert.ok(!commands.some((c) => c.includes('scheduler/src/main') || c.includes('facade/src/main')), 'no scheduler or facade process of their own');
  // Each child starts with the launcher's memory settings (supervisor.test.ts: the user's come after them).
  for (const pid of pids.filter((p) => /launcher\/src\/control|inference-node\/src\/main/.test(commandOf(p)))) {
    assert.match(environOf(pid, 'NODE_OPTIONS') ?? '', /^--max-semi-space-size=2\b/, commandOf(pid));
    assert.match(environOf(pid, 'GLIBC_TUNABLES') ?? '', /^glibc\.malloc\.mmap_threshold=32768\b/, commandOf(pid));
  }

  const base = `http://127.0.0.1:${port}`;
  const health = (await (await fetch(`${base}/api/health`)).json()) as { mode: string; ready: boolean };
  assert.deepEqual([health.mode, health.ready], ['embedded', true]);

  // Embedded mode: the administrator key is generated on first start, printed once, stored under DATA_DIR.
  const printed = /Administrator key \(shown once; stored in ([^)]+)\): (\S+)/.exec(output());
  assert.ok(printed, 'admin key printed');
  const [, keyPath, adminKey] = printed;
  assert.equal(readFileSync(keyPath!, 'utf8').trim(), adminKey);
  assert.equal(statSync(keyPath!).mode & 0o777, 0o600);
  assert.ok(!output().split('\n').some((line) => line.startsWith('{') && line.includes(adminKey!)), 'the key is in no log line');

  const anonymous = await postJson(`${base}/api/tts`, { text: 'No credential.', voice: 'flite:slt' });
  assert.equal(anonymous.status, 401);
  const created = await postJson(`${base}/api/auth/keys`, { name: 'launcher-test' }, { 'x-admin-key': adminKey! });
  assert.equal(created.status, 201);
  const { api_key: apiKey } = (await created.json()) as { api_key: string };
  const res = await postJson(`${base}/api/tts`, { text: 'The platform is up.', voice: 'flite:slt' }, { 'x-api-key': apiKey });
  assert.equal(res.status, 200);
  assert.ok((await res.arrayBuffer()).byteLength > 10_000);
  assert.ok(statSync(join(dataDir, 'pglite')).isDirectory(), 'embedded database under DATA_DIR');

  // An asynchronous job through the embedded scheduler (the one embedded database, in-process queue).
  const submitted = await postJson(`${base}/api/jobs/tts`, { text: 'An embedded job.', voice: 'flite:slt' }, { 'x-api-key': apiKey });
  assert.equal(submitted.status, 202);
  const { job_id: jobId } = (await submitted.json()) as { job_id: string };
  await waitFor(async () => {
    const j = (await (await fetch(`${base}/api/jobs/${jobId}`, { headers: { 'x-api-key': apiKey } })).json()) as { status: string };
    return j.status === 'completed';
  }, 30_000, 'embedded job completion');
  const audio = await fetch(`${base}/api/jobs/${jobId}/audio`, { headers: { 'x-api-key': apiKey } });
  assert.equal(audio.status, 200);
  assert.ok((await audio.arrayBuffer()).byteLength > 10_000);
  assert.ok(!existsSync(join(dataDir, 'scheduler', 'pglite')), 'no second embedded database');

  await stopsCleanly(launched);
}));

test('a launcher whose children all crash at once restarts them instead of exiting', { timeout: 150_000 }, () => withLauncher('tts-launcher-crash-', async (launched) => {
  const { child, output, port } = launched;
  const children = (): number[] => descendants(child.pid!).filter((p) => /launcher\/src\/control|inference-node\/src\/main/.test(commandOf(p)));
  const healthy = async (): Promise<boolean> => {
    try {
      return ((await (await fetch(`http://127.0.0.1:${port}/api/health`)).json()) as { ready?: boolean }).ready === true;
    } catch {
      return false;
    }
  };
  await waitFor(() => output().includes('"platform ready"'), 90_000, 'platform ready');
  const first = children();
  assert.equal(first.length, 2, 'the control process and the node');
  // Both at once (an OOM kill of the machine's largest processes, say): nothing else keeps the
  // launcher's event loop alive but the restart timers.
  for (const pid of first) process.kill(pid, 'SIGKILL');
  // Until the launcher has started new children (its restart timers fired) or has exited.
  await waitFor(() => child.exitCode !== null || children().some((p) => !first.includes(p)), 60_000, 'a restart or the launcher exit');
  assert.equal(child.exitCode, null, `the launcher is still running: ${output().slice(-1500)}`);
  await waitFor(async () => children().length === 2 && (await healthy()), 90_000, 'the restarted platform ready');
  assert.ok(children().every((p) => !first.includes(p)), 'new processes');
  await stopsCleanly(launched);
}));

test('an install of the old layout keeps its jobs: the scheduler store under DATA_DIR/scheduler moves into the one database', { timeout: 120_000 }, async () => {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'tts-launcher-old-'));
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), TTS_NODES: '1', TTS_FESTIVAL_PROCESSES: '1', TTS_ENGINES: 'flite', DATA_DIR: dataDir, TTS_ADMIN_KEY: 'admin-key-of-the-old-install-0123456789' };
  for (const k of ['DATABASE_URL', 'SCHEDULER_DATABASE_URL', 'REDIS_URL']) delete env[k];
  // The old layout, written by the real components: the facade's database (an API key) under
  // DATA_DIR/pglite, and a job queued by a scheduler on its own database under DATA_DIR/scheduler.
  const facadeDb = await openDatabase({ dataDir, migrations: FACADE_MIGRATIONS });
  const created = await new ApiKeyService({ repository: new ApiKeyRepository(facadeDb) }).create({ name: 'old-install' });
  await facadeDb.close();
  const oldScheduler = await startScheduler({ host: '127.0.0.1', port: await freePort(), dataDir, ephemeral: false, discovery: 'self', staticNodes: [] });
  const queued = await submitJob(schedulerClient(oldScheduler.address), jobSpec('A job from before the upgrade.'), { ownerId: created.record.keyId, tier: created.record.tier });
  assert.equal((await callUnary(schedulerClient(oldScheduler.address).getJob.bind(schedulerClient(oldScheduler.address)), { jobId: queued.jobId })).job?.jobId, queued.jobId);
  await oldScheduler.stop(1000);
  closeAllClients();
  assert.ok(existsSync(join(dataDir, 'scheduler', 'pglite', 'PG_VERSION')), 'old layout written');

  const { child, output } = spawnLauncher(env);
  try {
    await waitFor(() => output().includes('"platform ready"') || child.exitCode !== null, 90_000, 'platform ready');
    assert.ok(output().includes('"platform ready"'), output().slice(-3000));
    assert.match(output(), /"jobs":1,[^\n]*"msg":"jobs of the scheduler store moved into the platform database"/);
    assert.ok(!existsSync(join(dataDir, 'scheduler', 'pglite')) && existsSync(join(dataDir, 'scheduler', 'pglite.merged', 'PG_VERSION')), 'the old store is renamed, not deleted');
    // The job queued before the upgrade runs on the upgraded platform, for the key of the old install.
    const base = `http://127.0.0.1:${port}`;
    const headers = { 'x-api-key': created.apiKey };
    await waitFor(async () => {
      const j = (await (await fetch(`${base}/api/jobs/${queued.jobId}`, { headers })).json()) as { status: string };
      return j.status === 'completed';
    }, 30_000, 'the old job completes');
    const audio = await fetch(`${base}/api/jobs/${queued.jobId}/audio`, { headers });
    assert.equal(audio.status, 200);
    assert.ok((await audio.arrayBuffer()).byteLength > 10_000);

    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    assert.equal(((await exited) as [number | null])[0], 0, output().slice(-2000));
  } finally {
    if (child.exitCode === null) {
      child.kill('SIGKILL');
      await once(child, 'exit');
    }
    rmSync(dataDir, { recursive: true, force: true, maxRetries: 5 });
  }
});
