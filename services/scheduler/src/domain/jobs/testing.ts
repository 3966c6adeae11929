/**
 * Test support of the job domain (its unit specs only): in-process fakes of what the dispatcher
 * talks to — inference nodes that answer `Synthesize` when the test says so, a clock, a logger that
 * keeps its lines — a test's job storage, jobs of a given length, and a wait for a job's state that
 * follows the job's notifications.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { TtsError, type Logger } from '@tts/common';
import type { Database } from '@tts/common/data';
import type { TestDatabaseBackend } from '@tts/common/testing';
import { AudioEncoding, type SynthesizeRequest, type SynthesizeResponse } from '@tts/proto/synthesis';
import type { JobRecord, JobSpecFields, JobState, NewJob } from '../../data/jobs.js';
import { jobSpecFixture, newJobFixture } from '../../data/testing.js';
import type { NodeSynthesize } from './dispatcher.js';
import type { JobNotifier } from './job-events.js';

/** One `Synthesize` call a fake node received, waiting for the test's answer. */
export interface NodeCall {
  /** The node called (the address of `nodeStatusFixture(nodeId)` is `<nodeId>:1`). */
  readonly nodeId: string;
  readonly jobId: string;
  readonly request: SynthesizeRequest;
  /** Aborted when the dispatcher stops the call (cancellation, lost node, shutdown). */
  readonly signal: AbortSignal;
  /** Answers with `audio` (by default bytes naming the job, so every job stores its own artifact). */
  succeed(audio?: Buffer): void;
  /** Fails the call with `error`, as the gRPC client would reject. */
  fail(error: unknown): void;
}

/** Inference nodes that record every call and answer only when the test does. */
export class FakeNodes {
  readonly calls: NodeCall[] = [];
  private readonly listeners = new Set<() => void>();

  /** The dispatcher's `synthesize` option. A stopped call rejects with TTS_CANCELLED, as a cancelled gRPC call does. */
  readonly synthesize: NodeSynthesize = (address, request, { signal }) =>
    new Promise<SynthesizeResponse>((resolve, reject) => {
      const jobId = request.requestId;
      const call: NodeCall = {
        nodeId: address.replace(/:1$/, ''),
        jobId,
        request,
        signal,
        succeed: (audio = Buffer.from(`audio of ${jobId}`)) => resolve(responseOf(request, audio)),
        fail: reject,
      };
      signal.addEventListener('abort', () => reject(new TtsError('TTS_CANCELLED')), { once: true });
      this.calls.push(call);
      for (const listener of [...this.listeners]) listener();
    });

  /** Resolves to the `attempt`-th call (1 = the first) for `jobId` once it has arrived. */
  callFor(jobId: string, attempt = 1): Promise<NodeCall> {
    const find = (): NodeCall | undefined => this.calls.filter((c) => c.jobId === jobId)[attempt - 1];
    return new Promise((resolve) => {
      const check = (): void => {
        const call = find();
        if (call === undefined) return;
        this.listeners.delete(check);
        resolve(call);
      };
      this.listeners.add(check);
      check();
    });
  }

  /** The job ids of the calls so far, in the order they arrived, with the node each went to. */
  log(): string[] {
    return this.calls.map((c) => `${c.jobId}@${c.nodeId}`);
  }
}

function responseOf(request: SynthesizeRequest, audio: Buffer): SynthesizeResponse {
  return {
    audio,
    encoding: AudioEncoding.AUDIO_ENCODING_WAV,
    sampleRate: 16_000,
    voice: request.speech?.voice ?? '',
    engine: 'flite',
    contentType: 'audio/wav',
    metrics: undefined,
    clone: undefined,
    words: [],
  };
}

/** A clock the test moves: the membership's heartbeat times and the dispatcher's elapsed times, ms. */
export class TestClock {
  private ms = 1_000_000;
  readonly now = (): number => this.ms;
  advance(ms: number): void {
    this.ms += ms;
  }
}

/** A logger that keeps its lines (level and message) instead of writing them. */
export function recordingLogger(): Logger & { readonly lines: string[] } {
  const lines: string[] = [];
  const logger = {
    lines,
    debug: (msg: string) => void lines.push(`debug ${msg}`),
    info: (msg: string) => void lines.push(`info ${msg}`),
    warn: (msg: string) => void lines.push(`warn ${msg}`),
    error: (msg: string) => void lines.push(`error ${msg}`),
    child: () => logger,
  };
  return logger;
}

/** A job spec of `characters` characters for `voice` (a voice of `nodeStatusFixture`'s nodes). */
export function specOf(characters: number, voice = 'flite:v'): JobSpecFields {
  return jobSpecFixture({ text: 'x'.repeat(characters), voice });
}

/** A job to record of `characters` characters for flite:v (see `newJobFixture`); `overrides` change any field. */
export function newJob(characters: number, overrides: Partial<NewJob> = {}): NewJob {
  return newJobFixture({ spec: specOf(characters), ...overrides });
}

/** What a test's jobs are stored in: a fresh schema and data directory, removed when the test ends. */
export interface JobTestStorage {
  readonly database: Database;
  /** The scheduler's data directory (artifacts). */
  readonly dataDir: string;
  /** Runs `fn` when the test ends, before what was added earlier (the storage last). */
  cleanup(fn: () => Promise<void>): void;
}

/** Opens a test's job storage on `backend` (a fresh migrated schema) and a temporary data directory. */
export async function jobTestStorage(t: TestContext, backend: TestDatabaseBackend): Promise<JobTestStorage> {
  const cleanups: (() => Promise<void>)[] = [];
  t.after(async () => {
    for (const fn of cleanups.reverse()) await fn();
  });
  const database = await backend.open({ after: (fn) => cleanups.push(fn) });
  const dataDir = await mkdtemp(join(tmpdir(), 'tts-scheduler-jobs-'));
  cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
  return { database, dataDir, cleanup: (fn) => void cleanups.push(fn) };
}

/**
 * Resolves to the job once it is in `state`: reads it with `find` now and again after each of its
 * notifications (every transition the dispatcher and the job service record notifies).
 */
export async function stateReached(find: (jobId: string) => Promise<JobRecord | null>, notifier: JobNotifier, jobId: string, state: JobState): Promise<JobRecord> {
  for (;;) {
    let unsubscribe = (): void => undefined;
    const notified = new Promise<void>((resolve) => (unsubscribe = notifier.subscribe(jobId, resolve)));
    try {
      const job = await find(jobId);
      if (job?.state === state) return job;
      await notified;
    } finally {
      unsubscribe();
    }
  }
}
