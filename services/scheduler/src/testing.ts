/**
 * Test and benchmark support (not for production code): job storage on the real test PostgreSQL
 * (a fresh schema) and Redis (a fresh key prefix), inference node and scheduler processes, and job
 * helpers over the gRPC client.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Metadata } from '@grpc/grpc-js';
import {
  JobOwnerKind,
  type Job,
  type JobEvent,
  type JobResult,
  type JobSpec,
  type SchedulerClient,
} from '@tts/proto/scheduler';
import { AudioEncoding, type SpeechSpec } from '@tts/proto/synthesis';
import { openDatabase, type Database } from '@tts/common/data';
import { freshSchemaName, TEST_DATABASE_URL, freshPrefix, TEST_REDIS_URL } from '@tts/common/testing';
import { callUnary, fromServiceError, isTerminalJobState, nodeArgsFor } from '@tts/common';
import { openKv, type Kv } from '@tts/common/kv';
import { SCHEDULER_MIGRATIONS } from './data/migrations/index.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** Job storage of one test: a fresh PostgreSQL schema (with the scheduler's tables) and Redis key prefix. */
export interface JobStorage {
  readonly database: Database;
  readonly kv: Kv;
  /** Environment giving a scheduler process the same storage. */
  readonly env: Readonly<Record<string, string>>;
  /** Drops the schema, deletes the keys and closes the connections. */
  close(): Promise<void>;
}

/** Opens job storage on the real test servers (TEST_DATABASE_URL, TEST_REDIS_URL). */
export async function openJobStorage(): Promise<JobStorage> {
  const schema = freshSchemaName();
  const prefix = freshPrefix();
  const database = await openDatabase({ url: TEST_DATABASE_URL, schema, maxConnections: 6, migrations: SCHEDULER_MIGRATIONS });
  const kv = await openKv({ url: TEST_REDIS_URL, prefix });
  return {
    database,
    kv,
    env: { SCHEDULER_DATABASE_URL: TEST_DATABASE_URL, SCHEDULER_DB_SCHEMA: schema, REDIS_URL: TEST_REDIS_URL, TTS_KV_PREFIX: prefix },
    async close() {
      try {
        await database.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        if (kv.backend.kind === 'redis') {
          const keys: string[] = [];
          for await (const batch of kv.backend.client.scanIterator({ MATCH: `${prefix}:*`, COUNT: 500 })) keys.push(...batch);
          if (keys.length > 0) await kv.backend.client.unlink(keys);
        }
      } finally {
        await kv.close();
        await database.close();
      }
    },
  };
}

/** A platform process started by a test. */
export interface ServiceProcess {
  readonly pid: number;
  readonly child: ChildProcess;
  /** Resolves when the process exited. */
  readonly exited: Promise<void>;
  /** Recent output lines. */
  output(): string;
  /** Resolves when a stdout line contains `text` (lines already seen count). */
  waitForLine(text: string, timeoutMs?: number): Promise<string>;
  /** Sends a signal (e.g. SIGKILL, SIGSTOP). */
  kill(signal: NodeJS.Signals): void;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once exited. */
  stop(graceMs?: number): Promise<void>;
}

/** Starts `entry` (e.g. "services/scheduler/src/main") from the sources, with an IPC channel so it exits with its parent. */
export async function spawnService(entry: string, env: Record<string, string>, readyLine: string, timeoutMs = 30_000): Promise<ServiceProcess> {
  const child = spawn(process.execPath, nodeArgsFor(join(root, `${entry}.ts`)), {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  const lines: string[] = [];
  const waiters: { text: string; resolve: (line: string) => void }[] = [];
  let partial = '';
  const onData = (data: Buffer): void => {
    partial += data.toString('utf8');
    const parts = partial.split('\n');
    partial = parts.pop() ?? '';
    for (const line of parts) {
      lines.push(line);
      if (lines.length > 400) lines.shift();
      for (const w of [...waiters]) {
        if (line.includes(w.text)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(line);
        }
      }
    }
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const proc: ServiceProcess = {
    pid: child.pid!,
    child,
    exited,
    output: () => lines.join('\n'),
    waitForLine(text, ms = timeoutMs) {
      const seen = lines.find((l) => l.includes(text));
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`timed out waiting for "${text}" from ${entry}:\n${lines.slice(-30).join('\n')}`)), ms);
        waiters.push({
          text,
          resolve: (line) => {
            clearTimeout(timer);
            resolve(line);
          },
        });
        void exited.then(() => {
          clearTimeout(timer);
          reject(new Error(`${entry} exited before "${text}":\n${lines.slice(-30).join('\n')}`));
        });
      });
    },
    kill(signal) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    },
    async stop(graceMs = 5000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGCONT');
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
  try {
    await proc.waitForLine(readyLine, timeoutMs);
  } catch (err) {
    proc.kill('SIGKILL');
    throw err;
  }
  return proc;
}

/** Options of startNodeProcess. */
export interface NodeProcessOptions {
  readonly nodeId: string;
  /** Scheduler to register with. */
  readonly schedulerAddress: string;
  /** @default "flite" */
  readonly engines?: string;
  readonly env?: Record<string, string>;
}

/** Starts an inference node process on a free port; resolves once it registered with the scheduler. */
export function startNodeProcess(o: NodeProcessOptions): Promise<ServiceProcess> {
  return spawnService(
    'services/inference-node/src/main',
    {
      NODE_ID: o.nodeId,
      NODE_GRPC_HOST: '127.0.0.1',
      NODE_GRPC_PORT: '0',
      SCHEDULER_ADDRESS: o.schedulerAddress,
      NODE_HEARTBEAT_MS: '200',
      TTS_ENGINES: o.engines ?? 'flite',
      TTS_FLITE_WORKERS: '1',
      ...o.env,
    },
    '"registered with scheduler"',
  );
}

/** Starts a scheduler process on `port` with the given environment; resolves once it is ready. */
export function startSchedulerProcess(port: number, env: Record<string, string>): Promise<ServiceProcess> {
  return spawnService(
    'services/scheduler/src/main',
    { SCHEDULER_GRPC_HOST: '127.0.0.1', SCHEDULER_GRPC_PORT: String(port), SCHEDULER_HEARTBEAT_MS: '200', SCHEDULER_NODE_TIMEOUT_MS: '1500', ...env },
    '"scheduler ready"',
  );
}

/** A job spec with defaults (WAV, flite); `speech` overrides fields of its SpeechSpec. */
export function jobSpec(text: string, speech: Partial<SpeechSpec> = {}): JobSpec {
  return {
    speech: {
      text,
      voice: 'flite:slt',
      engine: '',
      speed: 0,
      encoding: AudioEncoding.AUDIO_ENCODING_WAV,
      sampleRate: 0,
      language: '',
      instructions: '',
      rawText: false,
      watermarkPayload: 0,
      clone: undefined,
      wordTimings: false,
      bitrateKbps: 0,
      lexicon: [],
      ...speech,
    },
    mode: 'auto',
    consentConfirmed: true,
  };
}

/** Submits a job; resolves to its record. */
export async function submitJob(
  client: SchedulerClient,
  spec: JobSpec,
  owner: { ownerId?: string; ownerKind?: JobOwnerKind; tier?: string } = {},
): Promise<Job> {
  const res = await callUnary(client.submitJob.bind(client), {
    spec,
    ownerId: owner.ownerId ?? 'key_test',
    ownerKind: owner.ownerKind ?? JobOwnerKind.JOB_OWNER_KIND_API_KEY,
    tier: owner.tier ?? 'pro',
    requestId: '',
  });
  return res.job!;
}

/** Polls a job's events (as the facade's events endpoint does) until it is terminal; resolves to every event. */
export async function pollJobEvents(client: SchedulerClient, jobId: string, timeoutMs = 30_000, onEvent?: (e: JobEvent) => void): Promise<JobEvent[]> {
  const events: JobEvent[] = [];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const page = await callUnary(client.listJobEvents.bind(client), { jobId, afterEventId: events.at(-1)?.eventId ?? 0, limit: 200 }, { timeoutMs: 5000 }).catch(
      (err: unknown) => {
        // The scheduler may be restarting: keep polling until the deadline.
        if (Date.now() > deadline) throw err;
        return undefined;
      },
    );
    for (const e of page?.events ?? []) {
      events.push(e);
      onEvent?.(e);
    }
    if (page && isTerminalJobState(page.state) && (events.at(-1)?.eventId ?? 0) >= page.lastEventId) return events;
    if (Date.now() > deadline) throw new Error(`job ${jobId} not finished after ${timeoutMs} ms; events: ${events.map((e) => e.kind).join(', ')}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Waits for every job to end and asserts that each completed exactly once: one "completed" event,
 * last; gap-free event ids; never two attempts running at once; one result (audio hash) per job.
 * Resolves to each job's events.
 */
export async function expectCompletedOnce(client: SchedulerClient, jobs: readonly Pick<Job, 'jobId'>[], timeoutMs = 45_000): Promise<JobEvent[][]> {
  const all = await Promise.all(jobs.map((j) => pollJobEvents(client, j.jobId, timeoutMs)));
  for (const [i, events] of all.entries()) {
    const kinds = events.map((e) => e.kind);
    assert.equal(kinds.filter((k) => k === 'completed').length, 1, `job ${i}: ${kinds.join(',')}`);
    assert.equal(kinds.at(-1), 'completed');
    assert.deepEqual(events.map((e) => e.eventId), events.map((_, k) => k + 1), 'event ids stay gap-free');
    let runningNow = false;
    for (const e of events) {
      assert.ok(!(e.kind === 'running' && runningNow), `job ${i} started again while running: ${kinds.join(',')}`);
      if (e.kind === 'running') runningNow = true;
      else if (e.kind !== 'queued') runningNow = false;
    }
  }
  const hashes = await Promise.all(jobs.map(async (j) => (await callUnary(client.getJob.bind(client), { jobId: j.jobId })).job?.result?.sha256));
  assert.equal(new Set(hashes).size, jobs.length, 'one result per job');
  return all;
}

/** Reads a completed job's audio with ReadJobAudio. */
export async function readJobAudio(client: SchedulerClient, jobId: string): Promise<{ result: JobResult; audio: Buffer }> {
  const stream = client.readJobAudio({ jobId }, new Metadata());
  const chunks: Buffer[] = [];
  let result: JobResult | undefined;
  try {
    for await (const chunk of stream as AsyncIterable<{ data: Buffer; result: JobResult | undefined }>) {
      result ??= chunk.result;
      chunks.push(chunk.data);
    }
  } catch (err) {
    throw fromServiceError(err);
  }
  if (!result) throw new Error('ReadJobAudio sent no result');
  return { result, audio: Buffer.concat(chunks) };
}

/** Collects a WatchJob stream until it ends. */
export async function watchJobEvents(client: SchedulerClient, jobId: string, afterEventId = 0): Promise<JobEvent[]> {
  const stream = client.watchJob({ jobId, afterEventId }, new Metadata());
  const events: JobEvent[] = [];
  try {
    for await (const e of stream as AsyncIterable<JobEvent>) events.push(e);
  } catch (err) {
    throw fromServiceError(err);
  }
  return events;
}

/** Waits until `check` holds (polling every 25 ms) or throws after `timeoutMs`. */
export async function waitUntil(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Resolves once `child` exited (for processes killed by a test). */
export async function exitOf(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await once(child, 'exit');
}
