/**
 * Asynchronous jobs of the scheduler: submission, reads, events, cancellation and queue
 * statistics over the job store (PostgreSQL or embedded PGlite), the work queue (Redis Streams or
 * in-process), the artifact store and the dispatcher.
 *
 * Storage opens at start. External storage (a database passed in, SCHEDULER_DATABASE_URL) is
 * awaited, so an unreachable database fails the start and unfinished jobs resume before the
 * scheduler serves. The embedded PGlite (a few seconds to create) opens in the background, so the
 * scheduler serves membership and routing at once; job calls wait for it.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { ReadStream } from 'node:fs';
import { openDatabase, type Database } from '@tts/common/data';
import {
  JobRepository,
  type JobEventRecord,
  type JobOwnerKind,
  type JobRecord,
  type JobSpecFields,
  type JobState,
  type NewJob,
} from '../../data/jobs.js';
import { TtsError, SAMPLE_RATE_RANGE, SPEED_RANGE } from '@tts/common';
import { openKv, openWorkQueue, type Kv, type WorkQueue } from '@tts/common/kv';
import type { Logger } from '@tts/common';
import type { SchedulerConfig } from '../../config.js';
import type { Membership } from '../membership.js';
import { requiredEngine, type PlacementPolicy } from '../routing.js';
import { ArtifactStore } from './artifacts.js';
import { ApiKeyCredentialsView } from '../../data/api-key-credentials.js';
import { SCHEDULER_MIGRATIONS } from '../../data/migrations/index.js';
import type { CallerAuthenticator } from '../caller-authenticator.js';
import { SchedulerLeaseRepository } from '../../data/scheduler-leases.js';
import { Dispatcher, type NodeSynthesize } from './dispatcher.js';
import { JobNotifier } from './job-events.js';
import { PRIORITY_LEVELS, priorityOfTier } from './priorities.js';
import { encodeQueuedJob } from './queue-items.js';

/** A job to submit. */
export interface SubmitJobInput {
  readonly ownerId: string;
  readonly ownerKind: JobOwnerKind;
  readonly tier: string;
  readonly requestId: string;
  readonly spec: JobSpecFields;
}

/** A page of events with the job's current state. */
export interface JobEventsPage {
  readonly events: JobEventRecord[];
  readonly state: JobState;
  readonly lastEventId: number;
}

/** Queue statistics. */
export interface QueueStats {
  /** queued + retrying */
  readonly queued: number;
  readonly running: number;
  readonly nodesReady: number;
  readonly nodesTotal: number;
  readonly capacity: number;
  readonly etaSeconds: number;
}

/** A completed job's audio. */
export interface JobAudio {
  readonly job: JobRecord;
  readonly stream: ReadStream;
}

/** What the job service is built from. */
export interface JobServiceOptions {
  readonly config: SchedulerConfig;
  readonly membership: Membership;
  readonly policy: PlacementPolicy;
  readonly logger: Logger;
  /** A database to use instead of opening one (not closed by the service); the service applies its migrations to it. */
  readonly database?: Database;
  /** A key-value store to use instead of opening one (not closed by the service). */
  readonly kv?: Kv;
  /** How the dispatcher reaches the nodes. @default gRPC (the node's unary Synthesize) */
  readonly synthesize?: NodeSynthesize;
}

interface OpenStore {
  readonly repo: JobRepository;
  readonly callers: CallerAuthenticator;
  readonly queue: WorkQueue;
  readonly artifacts: ArtifactStore;
  readonly dispatcher: Dispatcher;
  close(graceMs: number): Promise<void>;
}

const SPEED = SPEED_RANGE;
const SAMPLE_RATE = SAMPLE_RATE_RANGE;

/** The scheduler's asynchronous jobs. */
export class JobService {
  /** Watchers of jobs' events. */
  readonly notifier = new JobNotifier();
  /**
   * Checks the API keys of gRPC callers against the facade's published credentials in the job
   * database (`data/api-key-credentials.ts`), once the store is open.
   */
  readonly callers: CallerAuthenticator = {
    verifyApiKey: async (apiKey) => (await this.open()).callers.verifyApiKey(apiKey),
  };
  private store: Promise<OpenStore> | undefined;
  private opened: OpenStore | undefined;
  private closed = false;

  private constructor(private readonly o: JobServiceOptions) {}

  /** Creates the service; opens storage now when it is external or already exists on disk. */
  static async create(options: JobServiceOptions): Promise<JobService> {
    const service = new JobService(options);
    const opening = service.open();
    if (options.database !== undefined || options.config.databaseUrl !== undefined) await opening;
    else opening.catch((err: unknown) => options.logger.error('job store failed to open; job calls retry', { err }));
    return service;
  }

  /**
   * Records a job and queues it (state queued, event 1), or, when nothing waits and a node has a
   * free slot, dispatches it at once (state running, events 1 and 2). Resolves once it is durable:
   * when the queue is unreachable (Redis down) the recorded job is queued once it answers again.
   * A job that would queue is refused with TTS_OVERLOADED while the queue's estimated drain time
   * (stats().etaSeconds, re-read at most once a second) exceeds SCHEDULER_JOB_MAX_QUEUE_WAIT_SEC.
   */
  async submit(input: SubmitJobInput): Promise<JobRecord> {
    this.validate(input);
    const store = await this.open();
    const newJob: NewJob = {
      jobId: `job_${randomBytes(15).toString('base64url')}`,
      ownerId: input.ownerId,
      ownerKind: input.ownerKind,
      tier: input.tier,
      priority: priorityOfTier(input.tier),
      requestId: input.requestId === '' ? null : input.requestId,
      maxAttempts: this.o.config.jobMaxAttempts,
      spec: input.spec,
    };
    // Idle system: straight to a free node, recorded as running while the node starts.
    const started = await store.dispatcher.startNow(newJob, (nodeId) => store.repo.insertRunning(newJob, nodeId, store.dispatcher.runner));
    if (started) return started;
    await this.admitQueued();
    const job = await store.repo.insert(newJob);
    try {
      await store.queue.add(encodeQueuedJob({ jobId: job.jobId, voice: job.spec.voice, engine: job.spec.engine, characters: job.characters }), job.priority);
      store.dispatcher.noteQueued();
    } catch (err) {
      // The job is durable: the dispatcher's reconciliation queues it once the queue answers again.
      this.o.logger.warn('queueing a submitted job failed; it is queued when the queue answers again', { job_id: job.jobId, err });
      store.dispatcher.noteQueueTrouble();
    }
    store.dispatcher.kick();
    return job;
  }

  /** The job; JOB_NOT_FOUND when unknown. */
  async get(jobId: string): Promise<JobRecord> {
    const job = await (await this.open()).repo.find(jobId);
    if (!job) throw new TtsError('JOB_NOT_FOUND', undefined, { loc: ['job_id'] });
    return job;
  }

  /** The owner's jobs (of one owner kind, when given), most recent first. */
  async list(ownerId: string, limit: number, ownerKind?: JobOwnerKind): Promise<JobRecord[]> {
    if (ownerId === '') throw new TtsError('VALIDATION_FAILED', 'owner_id is required.', { loc: ['owner_id'] });
    return (await this.open()).repo.listByOwner(ownerId, limit, ownerKind);
  }

  /** Events of a job after `afterEventId`, ascending. */
  async events(jobId: string, afterEventId: number, limit: number): Promise<JobEventsPage> {
    const job = await this.get(jobId);
    const store = await this.open();
    const events = await store.repo.events(jobId, afterEventId, limit);
    // Read after the events: the state is at least as new as the last event returned.
    const now = (await store.repo.find(jobId)) ?? job;
    return { events, state: now.state, lastEventId: now.lastEventId };
  }

  /** Cancels an unfinished job (stopping its synthesis); `cancelled` is false when it had finished. */
  async cancel(jobId: string): Promise<{ job: JobRecord; cancelled: boolean }> {
    const store = await this.open();
    const t = await store.repo.cancel(jobId);
    if (!t) throw new TtsError('JOB_NOT_FOUND', undefined, { loc: ['job_id'] });
    if (t.changed) {
      store.dispatcher.cancel(jobId);
      this.notifier.notify(jobId);
    }
    return { job: t.job, cancelled: t.changed };
  }

  /** The audio of a completed job. */
  async audio(jobId: string): Promise<JobAudio> {
    const job = await this.get(jobId);
    if (job.state === 'failed') throw new TtsError('JOB_FAILED', `The job failed (${job.errorCode ?? 'unknown error'}).`);
    if (job.state === 'cancelled') throw new TtsError('JOB_CANCELLED');
    if (job.state !== 'completed' || job.result === null) throw new TtsError('JOB_NOT_READY', `The job is ${job.state}.`, { retryAfterSec: 1 });
    const store = await this.open();
    if ((await store.artifacts.size(job.result.path)) === undefined) throw new TtsError('JOB_RESULT_MISSING');
    return { job, stream: store.artifacts.open(job.result.path) };
  }

  /** The queue's drain-time estimate of the last admission check, and when it was read. */
  private queueWait: { readonly seconds: number; readonly atMs: number } | undefined;

  /** Throws TTS_OVERLOADED when the queue's estimated drain time exceeds the configured bound. */
  private async admitQueued(): Promise<void> {
    const bound = this.o.config.jobMaxQueueWaitSec;
    if (bound === 0) return;
    const now = Date.now();
    if (this.queueWait === undefined || now - this.queueWait.atMs > 1000) this.queueWait = { seconds: (await this.stats()).etaSeconds, atMs: now };
    const wait = this.queueWait.seconds;
    if (wait > bound) {
      throw new TtsError('TTS_OVERLOADED', `The job queue's estimated wait (${Math.round(wait)} s) exceeds its bound (${bound} s).`, { retryAfterSec: Math.max(1, Math.ceil(wait - bound)) });
    }
  }

  /** Queue depth, running jobs, nodes and a drain-time estimate. */
  async stats(): Promise<QueueStats> {
    const { membership } = this.o;
    const ready = membership.ready();
    const capacity = ready.reduce((n, e) => n + Math.max(0, e.status.capacity), 0);
    const store = await this.open();
    const counts = await store.repo.counts();
    const load = store.dispatcher.load();
    const secondsPerChar = ready.length > 0 ? ready.reduce((s, e) => s + e.status.secondsPerChar, 0) / ready.length : 0;
    const work = counts.waitingCharacters * secondsPerChar + load.runningSeconds;
    return {
      queued: counts.waiting,
      running: counts.running,
      nodesReady: ready.length,
      nodesTotal: membership.all().length,
      capacity,
      etaSeconds: capacity > 0 ? work / capacity : 0,
    };
  }

  /** Looks for dispatchable work now (a node joined). */
  kick(): void {
    this.opened?.dispatcher.kick();
  }

  /** Stops dispatching (running syntheses get `graceMs`) and closes what the service opened. */
  async close(graceMs: number): Promise<void> {
    this.closed = true;
    this.notifier.closeAll();
    const store = this.store ? await this.store.catch(() => undefined) : undefined;
    await store?.close(graceMs);
  }

  private open(): Promise<OpenStore> {
    if (this.closed) return Promise.reject(new TtsError('SERVICE_SHUTTING_DOWN'));
    this.store ??= this.openStore().then(
      (s) => (this.opened = s),
      (err: unknown) => {
        this.store = undefined;
        throw err;
      },
    );
    return this.store;
  }

  private async openStore(): Promise<OpenStore> {
    const { config: c, logger } = this.o;
    const ownDb = this.o.database === undefined;
    const database =
      this.o.database ??
      (await openDatabase({
        ...(c.databaseUrl !== undefined ? { url: c.databaseUrl } : {}),
        ...(c.databaseUrl === undefined && !c.ephemeral ? { dataDir: join(c.dataDir, 'scheduler') } : {}),
        schema: c.dbSchema,
        migrations: SCHEDULER_MIGRATIONS,
      }));
    if (!ownDb) await database.migrate(SCHEDULER_MIGRATIONS);
    let kv: Kv;
    try {
      kv = this.o.kv ?? (await openKv({ ...(c.redisUrl !== undefined ? { url: c.redisUrl } : {}), prefix: c.kvPrefix, logger }));
    } catch (err) {
      if (ownDb) await database.close();
      throw err;
    }
    const ownKv = this.o.kv === undefined;
    const closeAll = async (): Promise<void> => {
      if (ownKv) await kv.close().catch(() => undefined);
      if (ownDb) await database.close().catch(() => undefined);
    };
    try {
      const repo = new JobRepository(database);
      const leases = new SchedulerLeaseRepository(database);
      const queue = await openWorkQueue(kv, { name: 'jobs', priorities: PRIORITY_LEVELS, group: 'schedulers' });
      const artifacts = new ArtifactStore(c.dataDir);
      const dispatcher = new Dispatcher({
        repo,
        leases,
        queue,
        artifacts,
        membership: this.o.membership,
        policy: this.o.policy,
        notifier: this.notifier,
        logger,
        consumer: c.schedulerId,
        jobTimeoutMs: c.jobTimeoutMs,
        pollMs: c.queuePollMs,
        leaseMs: c.queueLeaseMs,
        watchdogMs: Math.max(50, Math.min(c.heartbeatMs, 1000) / 2),
        synthesize: this.o.synthesize,
      });
      await dispatcher.start();
      logger.info('jobs ready', { database: database.kind, queue: queue.backend, consumer: c.schedulerId });
      return {
        repo,
        callers: new ApiKeyCredentialsView(database, logger),
        queue,
        artifacts,
        dispatcher,
        async close(graceMs) {
          await dispatcher.stop(graceMs);
          await closeAll();
        },
      };
    } catch (err) {
      await closeAll();
      throw err;
    }
  }

  private validate(input: SubmitJobInput): void {
    const s = input.spec;
    if (input.ownerId.trim() === '' || input.ownerId.length > 256) {
      throw new TtsError('VALIDATION_FAILED', 'owner_id is required (at most 256 characters).', { loc: ['owner_id'] });
    }
    if (s.text.trim() === '') throw new TtsError('TTS_TEXT_EMPTY', 'The text is empty.', { loc: ['spec', 'text'] });
    if (s.text.length > this.o.config.jobMaxChars) {
      throw new TtsError('TTS_TEXT_TOO_LONG', `The text has ${s.text.length} characters; the job limit is ${this.o.config.jobMaxChars}.`, { loc: ['spec', 'text'] });
    }
    if (s.speed !== 0 && !(s.speed >= SPEED.min && s.speed <= SPEED.max)) {
      throw new TtsError('TTS_SPEED_OUT_OF_RANGE', `Speed ${s.speed} is outside ${SPEED.min} to ${SPEED.max}.`, { loc: ['spec', 'speed'] });
    }
    if (s.sampleRate !== 0 && (s.sampleRate < SAMPLE_RATE.min || s.sampleRate > SAMPLE_RATE.max)) {
      throw new TtsError('TTS_SAMPLE_RATE_INVALID', undefined, { loc: ['spec', 'sample_rate'] });
    }
    const engine = requiredEngine({ voice: s.voice, engine: s.engine, characters: 0, excludeNodeIds: [] });
    const known = this.o.membership.all();
    // Like PickNode: a name no node of this deployment has ever offered does not exist. With no node
    // known yet the job waits, and the node reports a bad voice when it runs.
    if (engine !== '' && known.length > 0 && !known.some((e) => e.status.engines.some((x) => x.name === engine))) {
      throw s.engine !== ''
        ? new TtsError('TTS_ENGINE_NOT_FOUND', `Engine "${s.engine}" does not exist.`, { loc: ['spec', 'engine'] })
        : new TtsError('TTS_VOICE_NOT_FOUND', `Voice "${s.voice}" does not exist.`, { loc: ['spec', 'voice'] });
    }
  }
}
