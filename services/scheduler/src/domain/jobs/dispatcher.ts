/**
 * The job dispatcher: takes jobs from the queue and runs each on an inference node with the node's
 * unary `Synthesize` (the node returns the whole encoded file), stores the audio as an artifact and
 * records the outcome.
 *
 * - Capacity: at most `capacity` (from the node's NodeStatus) jobs run on a node at once; the rest
 *   stay in the queue, where priority (enterprise > pro > free > web) orders them. The dispatcher
 *   reads a window of head-of-queue jobs (four per slot of the ready nodes) and plans them with
 *   the placement policy (earliest estimated finish, or round-robin); a job may wait for a busy
 *   node that would still finish it sooner. Draining and unhealthy nodes get no new work.
 * - At least once, done once: a queue entry stays pending (leased, touched every lease/3) until the
 *   job's outcome is in the database; a job runs only after a conditional claim
 *   (queued|retrying -> running) succeeds, so stale or duplicate entries are dropped, and
 *   completion is a conditional update, so a job finished twice stores one result.
 * - Node loss: a call that fails as UNAVAILABLE (the node process died; the node gets no new work
 *   until it reports again) or a node that stops heart-beating (checked every watchdog period; its
 *   call is cancelled) puts the job back in the queue (retrying, attempts + 1, preferring other
 *   nodes) until max attempts, then fails it with JOB_NODE_LOST. Other retryable errors retry the
 *   same way with their own code; the rest fail the job at once.
 * - Idle fast path: a job submitted while nothing waits and a node has a free slot for it is
 *   dispatched at once: the node starts while the job row is written (as running) in parallel, so
 *   the scheduling overhead is not a database commit. The submitter's answer still waits for the
 *   commit, and the outcome is recorded only after it.
 * - Several schedulers share the work (Redis consumer group + row-level claims, no leader): each
 *   process holds a lease in the database (`scheduler_leases`, renewed every lease/3) under a fresh
 *   incarnation id, and the jobs it runs carry that id as their runner. Every outcome is a fenced
 *   update (still running, same runner, same attempt), so a scheduler that lost its lease (paused,
 *   cut off) cannot overwrite what another decided since.
 * - Orphans: a job left running without a synthesis here (its outcome could not be recorded) is put
 *   back in the queue after the lease time; so is a job whose runner holds no live lease (that
 *   scheduler died, or stopped and released its lease).
 * - Restart: `start()` takes the lease (replacing the previous incarnation of this SCHEDULER_ID),
 *   requeues the running jobs no live scheduler holds (its previous incarnation's among them, never
 *   another live scheduler's), acknowledges its own pending entries and re-adds every waiting job
 *   missing from the queue (the in-process queue starts empty). Entries held by another, silent
 *   scheduler are taken over after the lease.
 * - Reconciliation: the database is the truth, the queue only points at it. Besides the start,
 *   every waiting job missing from the queue (waiting or pending entries of any consumer) is re-added
 *   by the orphan sweep once it has waited RECONCILE_MIN_AGE_SECONDS (a Redis restarted without
 *   persistence, or flushed), after a reconnection of the queue, and after a queue operation failed
 *   (a submission during a Redis outage is recorded and queued once Redis answers again). Several
 *   schedulers may re-add one job: a duplicate entry is harmless, only one claim succeeds.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { SynthesizeRequest, SynthesizeResponse } from '@tts/proto/synthesis';
import type { JobRecord, JobRepository, JobSpecFields, NewJob } from '../../data/jobs.js';
import type { SchedulerLeaseRepository } from '../../data/scheduler-leases.js';
import { ERROR_CATALOGUE, isErrorCode, TtsError, callUnary, synthesizerClient, formatOf } from '@tts/common';
import type { QueueEntry, WorkQueue } from '@tts/common/kv';
import type { AudioFormat } from '@tts/common/audio';
import type { Logger } from '@tts/common';
import type { Membership, NodeEntry } from '../membership.js';
import { candidates, type JobRouteRequest, type PlacementPolicy, type SlotView } from '../routing.js';
import type { ArtifactStore } from './artifacts.js';
import type { JobNotifier } from './job-events.js';
import { speechOfStored } from './job-speech.js';
import { decodeQueuedJob, encodeQueuedJob, type QueuedJob } from './queue-items.js';

/**
 * Runs one job's synthesis on the node at `address` (its unary `Synthesize`: the whole encoded
 * file); rejects with a TtsError (TTS_NO_NODE_AVAILABLE when the node cannot be reached).
 */
export type NodeSynthesize = (address: string, request: SynthesizeRequest, options: { readonly timeoutMs: number; readonly signal: AbortSignal }) => Promise<SynthesizeResponse>;

/** NodeSynthesize over gRPC, on the cached client of the address. */
export const synthesizeOverGrpc: NodeSynthesize = (address, request, options) => {
  const client = synthesizerClient(address);
  return callUnary(client.synthesize.bind(client), request, options);
};

/** What the dispatcher works with. */
export interface DispatcherOptions {
  readonly repo: JobRepository;
  /** The schedulers' leases (liveness of the runners of running jobs). */
  readonly leases: SchedulerLeaseRepository;
  readonly queue: WorkQueue;
  readonly artifacts: ArtifactStore;
  readonly membership: Membership;
  readonly policy: PlacementPolicy;
  readonly notifier: JobNotifier;
  readonly logger: Logger;
  /** This scheduler's consumer name in the queue group, and its id in `scheduler_leases` (SCHEDULER_ID). */
  readonly consumer: string;
  /** Deadline of one dispatch, ms. */
  readonly jobTimeoutMs: number;
  /** Period of the look for work queued elsewhere, ms. */
  readonly pollMs: number;
  /** Idle time after which a silent consumer's entries are taken over, and this scheduler's lease time, ms. */
  readonly leaseMs: number;
  /** Period of the check of running jobs' nodes, ms. */
  readonly watchdogMs: number;
  /** How a job's synthesis reaches its node. @default synthesizeOverGrpc */
  readonly synthesize?: NodeSynthesize;
  /** Monotonic clock, ms, of the running jobs' elapsed time (what is left of their estimates). @default performance.now */
  readonly now?: () => number;
}

/** Load figures for queue statistics. */
export interface DispatcherLoad {
  readonly running: number;
  /** Estimated compute seconds left of the running jobs. */
  readonly runningSeconds: number;
}

interface HeldEntry {
  readonly entry: QueueEntry;
  readonly job: QueuedJob;
  /** Taken over from a silent consumer: its job may still be marked running by that scheduler. */
  readonly stale: boolean;
}

type StopReason = 'cancelled' | 'node_lost' | 'shutdown';

/** The job a synthesis runs: as submitted (fast path) or as claimed from the queue. */
interface Dispatched {
  readonly jobId: string;
  /** The submitting request, named by the audio's provenance mark. */
  readonly requestId: string | null;
  readonly ownerId: string;
  readonly priority: number;
  readonly characters: number;
  readonly spec: JobSpecFields;
}

interface Running {
  /** The queue entry; none for a job dispatched as it was submitted. */
  readonly entry: QueueEntry | undefined;
  readonly jobId: string;
  readonly nodeId: string;
  readonly costSeconds: number;
  readonly startedMs: number;
  readonly controller: AbortController;
  /** 0 until the claim succeeded. */
  attempt: number;
  reason: StopReason | undefined;
  settled: Promise<void>;
}

/**
 * Head-of-queue jobs planned per node slot. A slow node is worth a job only once the fast nodes'
 * backlog exceeds the speed gap (3x slower: about three jobs per fast slot), so the plan must see
 * that far.
 */
const LOOKAHEAD_PER_SLOT = 4;

/**
 * A waiting job missing from the queue is re-added by the periodic reconciliation only after this
 * long in its state, so one whose entry is being added right now (submission, retry) is left alone.
 */
const RECONCILE_MIN_AGE_SECONDS = 5;

const extensionOf = (format: AudioFormat): string => (format === 'opus' ? 'ogg' : format);

function byPriority(a: HeldEntry, b: HeldEntry): number {
  return a.entry.priority - b.entry.priority;
}

/** Moves jobs from the queue to nodes. */
export class Dispatcher {
  private held: HeldEntry[] = [];
  private readonly running = new Map<string, Running>();
  /** Nodes a job failed on, avoided by its next attempts. */
  private readonly excluded = new Map<string, Set<string>>();
  private pumping = false;
  /** A kick arrived while a pump round ran: run another round after it. */
  private kickPending = false;
  private stopped = false;
  private pumpDone: Promise<void> = Promise.resolve();
  private timers: NodeJS.Timeout[] = [];
  /** True once a read of the queue came back short: nothing was waiting then (fast path allowed). */
  private queueDrained = false;
  /** This process's incarnation: the runner of the jobs it dispatches. */
  readonly runner = randomUUID();
  /** The lease was found taken by another process with the same SCHEDULER_ID (reported once). */
  private leaseLostReported = false;
  /** A queue operation failed (e.g. Redis unreachable): reconcile at the next poll until one succeeds. */
  private queueTrouble = false;
  /** The reconciliation in progress, if any (one at a time). */
  private reconciling: Promise<boolean> | undefined;
  private stopListening: () => void = () => undefined;
  private readonly synthesize: NodeSynthesize;
  private readonly now: () => number;

  constructor(private readonly options: DispatcherOptions) {
    this.synthesize = options.synthesize ?? synthesizeOverGrpc;
    this.now = options.now ?? (() => performance.now());
  }

  /**
   * Recovers what a previous incarnation left behind, then starts dispatching; resolves after the
   * first dispatch round (the queue read once, so a job submitted next may start at once).
   */
  async start(): Promise<void> {
    const { repo, queue, logger, leases } = this.options;
    await leases.acquire(this.options.consumer, this.runner, this.options.leaseMs);
    const interrupted = await repo.requeueAbandoned('JOB_NODE_LOST', 'The scheduler running the job stopped.');
    for (const job of interrupted) this.options.notifier.notify(job.jobId);
    const ownPending = await queue.pendingOf(this.options.consumer);
    await queue.ack(ownPending);
    const added = await this.addMissing(0);
    if (interrupted.length > 0 || added > 0 || ownPending.length > 0) {
      logger.info('jobs recovered', { requeued_running: interrupted.length, released_entries: ownPending.length, re_added: added });
    }
    logger.info('scheduler lease taken', { scheduler_id: this.options.consumer, runner: this.runner });
    this.stopListening = queue.onReconnect(() => {
      logger.info('job queue reconnected: reconciling it with the waiting jobs');
      this.noteQueueTrouble();
    });
    this.timers = [
      setInterval(() => this.poll(), this.options.pollMs),
      setInterval(() => this.watchdog(), this.options.watchdogMs),
      setInterval(() => void this.renewLeases(), Math.max(100, Math.floor(this.options.leaseMs / 3))),
      setInterval(() => void this.sweepOrphans(), this.options.leaseMs),
    ];
    for (const t of this.timers) t.unref();
    this.kick();
    await this.idle();
  }

  /** Looks for work now (after a submit, a finished job, a new node). */
  kick(): void {
    if (this.stopped) return;
    if (this.pumping) {
      this.kickPending = true;
      return;
    }
    this.pumping = true;
    this.pumpDone = this.pump().finally(() => {
      this.pumping = false;
      // A kick that came after the last round's check must not be lost.
      if (this.kickPending) this.kick();
    });
  }

  /**
   * Dispatches a job as it is submitted when nothing waits in the queue and the policy places it
   * on a node with a free slot now: the node starts at once while `record(nodeId)` writes the job
   * as running. Resolves to the record, or undefined when the job must go through the queue;
   * rejects (after stopping the synthesis) when `record` fails.
   */
  async startNow(job: NewJob, record: (nodeId: string) => Promise<JobRecord>): Promise<JobRecord | undefined> {
    if (this.stopped || !this.queueDrained || this.held.length > 0) return undefined;
    const req: JobRouteRequest = { jobId: job.jobId, priority: job.priority, voice: job.spec.voice, engine: job.spec.engine, characters: job.spec.text.length, excludeNodeIds: [] };
    const [node] = this.options.policy.plan([req], this.views(this.options.membership.ready()));
    if (!node) return undefined;
    const run = this.newRun(undefined, job.jobId, node, req.characters);
    run.attempt = 1;
    this.running.set(job.jobId, run);
    const recorded = record(node.status.nodeId);
    const dispatched: Dispatched = { jobId: job.jobId, requestId: job.requestId, ownerId: job.ownerId, priority: job.priority, characters: req.characters, spec: job.spec };
    run.settled = this.execute(run, dispatched, node.status.address, recorded);
    try {
      const rec = await recorded;
      this.options.notifier.notify(job.jobId);
      return rec;
    } catch (err) {
      run.reason = 'cancelled';
      run.controller.abort();
      throw err;
    }
  }

  /** Resolves once no dispatch round runs (one a kick asked for meanwhile included). */
  async idle(): Promise<void> {
    while (this.pumping) await this.pumpDone;
  }

  /** Notes that a job was added to the queue (the fast path is off until the queue is read empty). */
  noteQueued(): void {
    this.queueDrained = false;
  }

  /**
   * Notes that a queue operation failed or the queue reconnected: waiting jobs may be missing from
   * it, so it is reconciled with the database at every poll until that succeeds.
   */
  noteQueueTrouble(): void {
    this.queueTrouble = true;
    this.queueDrained = false;
  }

  /** Stops the job's synthesis if it is running here (the job was cancelled). */
  cancel(jobId: string): void {
    const run = this.running.get(jobId);
    if (run && run.reason === undefined) {
      run.reason = 'cancelled';
      run.controller.abort();
    }
  }

  /** Jobs running here and their estimated remaining work. */
  load(): DispatcherLoad {
    const now = this.now();
    let runningSeconds = 0;
    for (const r of this.running.values()) runningSeconds += Math.max(0, r.costSeconds - (now - r.startedMs) / 1000);
    return { running: this.running.size, runningSeconds };
  }

  /**
   * Stops dispatching; running syntheses get `graceMs` to finish, then are abandoned: their jobs
   * stay "running" in the database and the next start requeues them.
   */
  async stop(graceMs: number): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) clearInterval(t);
    this.stopListening();
    await this.idle();
    await this.reconciling;
    const settled = (): Promise<unknown> => Promise.allSettled([...this.running.values()].map((r) => r.settled));
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([settled(), new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)))]);
    clearTimeout(timer);
    for (const r of this.running.values()) {
      if (r.reason === undefined) r.reason = 'shutdown';
      r.controller.abort();
    }
    await settled();
    // Jobs abandoned above are now another live scheduler's to requeue at once (or this one's at its next start).
    await this.options.leases.release(this.options.consumer, this.runner).catch((err: unknown) => this.options.logger.warn('releasing the scheduler lease failed', { err }));
  }

  private async pump(): Promise<void> {
    try {
      do {
        this.kickPending = false;
        await this.pumpOnce();
      } while (this.kickPending && !this.stopped);
    } catch (err) {
      // One line per outage, not one per poll.
      if (!this.queueTrouble) this.options.logger.error('job dispatch failed', { err });
      this.noteQueueTrouble();
    }
  }

  /** The poll: reconciles the queue first while it is in trouble, then looks for work. */
  private poll(): void {
    if (this.queueTrouble && !this.reconciling) {
      void this.reconcile(0).then((ok) => {
        if (ok) this.queueTrouble = false;
      });
    }
    this.kick();
  }

  /**
   * Re-adds waiting jobs missing from the queue (see the module comment); resolves to false when
   * the database or the queue failed. One reconciliation runs at a time.
   */
  private reconcile(minAgeSeconds: number): Promise<boolean> {
    this.reconciling ??= this.addMissing(minAgeSeconds)
      .then(
        (added) => {
          if (added > 0) {
            this.options.logger.info('jobs missing from the queue re-added', { re_added: added });
            this.noteQueued();
            this.kick();
          }
          return true;
        },
        (err: unknown) => {
          this.options.logger.debug('queue reconciliation failed', { err });
          return false;
        },
      )
      .finally(() => (this.reconciling = undefined));
    return this.reconciling;
  }

  /**
   * Adds an entry for each job waiting at least `minAgeSeconds` that neither the queue nor this
   * process holds; resolves to their number.
   */
  private async addMissing(minAgeSeconds: number): Promise<number> {
    const { repo, queue } = this.options;
    // The jobs first, then the queue: an entry taken and acknowledged in between belongs to a job
    // no longer waiting, which at worst gets a harmless duplicate.
    const waiting = await repo.listWaiting(minAgeSeconds);
    if (waiting.length === 0) return 0;
    const present = new Set<string>([...this.held.map((h) => h.job.jobId), ...this.running.keys()]);
    for (const e of await queue.unacked()) {
      const job = decodeQueuedJob(e.item);
      if (job) present.add(job.jobId);
    }
    let added = 0;
    for (const w of waiting) {
      if (present.has(w.jobId)) continue;
      await queue.add(encodeQueuedJob(w), w.priority);
      added++;
    }
    return added;
  }

  private async pumpOnce(): Promise<void> {
    const ready = this.options.membership.ready();
    const slots = ready.reduce((n, e) => n + Math.max(0, e.status.capacity), 0);
    const placeable = this.held.filter((h) => candidates(ready, this.routeOf(h)).length > 0).length;
    // Look at LOOKAHEAD_PER_SLOT head-of-queue jobs per slot: enough to see that a backlog makes a
    // slow idle node worth using; more urgent arrivals still overtake the window (below).
    const window = slots * LOOKAHEAD_PER_SLOT;
    const want = window - placeable;
    if (want > 0) {
      const taken = await this.options.queue.take(this.options.consumer, want);
      for (const entry of taken) this.accept(entry, false);
      if (taken.length < want) this.queueDrained = true;
    } else if (slots > 0 && this.held.length > 0) {
      // The window is full: still let more urgent jobs that arrived since overtake the held ones.
      const lowest = Math.max(...this.held.map((h) => h.entry.priority));
      if (lowest > 0) for (const entry of await this.options.queue.take(this.options.consumer, window, lowest - 1)) this.accept(entry, false);
    }
    if (this.held.length === 0 || ready.length === 0) return;
    this.held.sort(byPriority);
    const plan = this.options.policy.plan(this.held.map((h) => this.routeOf(h)), this.views(ready));
    const now: [HeldEntry, NodeEntry][] = [];
    const keep: HeldEntry[] = [];
    this.held.forEach((h, i) => {
      const node = plan[i];
      if (node) now.push([h, node]);
      else keep.push(h);
    });
    this.held = keep;
    await Promise.all(now.map(([h, node]) => this.dispatch(h, node)));
  }

  private accept(entry: QueueEntry, stale: boolean): void {
    const job = decodeQueuedJob(entry.item);
    if (!job) {
      this.options.logger.warn('dropping a malformed queue entry', { entry_id: entry.id });
      void this.options.queue.ack([entry]).catch(() => undefined);
      return;
    }
    if (this.held.some((h) => h.entry.id === entry.id) || [...this.running.values()].some((r) => r.entry?.id === entry.id)) return;
    this.held.push({ entry, job, stale });
  }

  private routeOf(h: HeldEntry): JobRouteRequest {
    return {
      jobId: h.job.jobId,
      priority: h.entry.priority,
      voice: h.job.voice,
      engine: h.job.engine,
      characters: h.job.characters,
      excludeNodeIds: [...(this.excluded.get(h.job.jobId) ?? [])],
    };
  }

  /** Slot views of the ready nodes from what runs where now. */
  private views(ready: readonly NodeEntry[]): SlotView[] {
    const now = this.now();
    return ready.map((entry) => {
      const capacity = Math.max(0, entry.status.capacity);
      // A running job's slot is never "free now", even past its estimate.
      const ownLeft = [...this.running.values()]
        .filter((r) => r.nodeId === entry.status.nodeId)
        .map((r) => Math.max(0.001, r.costSeconds - (now - r.startedMs) / 1000))
        .sort((a, b) => a - b);
      const slots = ownLeft.length >= capacity ? ownLeft.slice(ownLeft.length - capacity) : [...new Array<number>(capacity - ownLeft.length).fill(0), ...ownLeft];
      const ownTotal = ownLeft.reduce((a, b) => a + b, 0);
      const foreignSeconds = Math.max(0, entry.status.queuedWorkSeconds + entry.routedSinceReport - ownTotal);
      return { entry, slots, foreignSeconds };
    });
  }

  private async dispatch(h: HeldEntry, node: NodeEntry): Promise<void> {
    const { jobId } = h.job;
    if (this.running.has(jobId)) {
      // A duplicate entry of a job running here (e.g. re-added at start while an old entry was pending).
      await this.options.queue.ack([h.entry]).catch(() => undefined);
      return;
    }
    const run = this.newRun(h.entry, jobId, node, h.job.characters);
    this.running.set(jobId, run); // holds the slot while the claim is in flight
    let job: JobRecord | null;
    try {
      job = await this.options.repo.claim(jobId, run.nodeId, this.runner);
    } catch (err) {
      this.running.delete(jobId);
      this.held.push(h);
      this.options.logger.error('job claim failed', { job_id: jobId, err });
      return;
    }
    if (!job) {
      this.running.delete(jobId);
      await this.notClaimable(h);
      // The plan gave this job a slot that is free after all: plan the jobs kept waiting again.
      this.kick();
      return;
    }
    run.attempt = job.attempts;
    this.options.notifier.notify(jobId);
    this.options.logger.debug('job dispatched', { job_id: jobId, node_id: run.nodeId, attempt: run.attempt });
    run.settled = this.execute(run, { ...job, spec: job.spec }, node.status.address, Promise.resolve());
  }

  private newRun(entry: QueueEntry | undefined, jobId: string, node: NodeEntry, characters: number): Running {
    return {
      entry,
      jobId,
      nodeId: node.status.nodeId,
      costSeconds: characters * node.status.secondsPerChar,
      startedMs: this.now(),
      controller: new AbortController(),
      attempt: 0,
      reason: undefined,
      settled: Promise.resolve(),
    };
  }

  /**
   * The claim found the job not waiting: drop the entry. A job still running under the silent
   * scheduler whose entry this was is requeued by the orphan sweep once that scheduler's lease has
   * lapsed (never while it lives), so the sweep runs now.
   */
  private async notClaimable(h: HeldEntry): Promise<void> {
    const { repo, queue, notifier } = this.options;
    const job = await repo.find(h.job.jobId);
    if (job && job.state === 'running' && h.stale) {
      void this.sweepOrphans();
    } else if (job && (job.state === 'queued' || job.state === 'retrying') && job.attempts >= job.maxAttempts) {
      await repo.fail(job.jobId, 'JOB_NODE_LOST', 'The job ran out of attempts.');
      notifier.notify(job.jobId);
    }
    await queue.ack([h.entry]);
  }

  /**
   * Runs one synthesis and records its outcome once `recorded` (the job row) is there. The queue
   * entry is acknowledged only when the outcome is in the database; otherwise it stays pending and
   * is taken over again after its lease, and the orphan sweep requeues the job.
   */
  private async execute(run: Running, job: Dispatched, address: string, recorded: Promise<unknown>): Promise<void> {
    let done = false;
    try {
      let response: SynthesizeResponse | undefined;
      let failure: unknown;
      try {
        response = await this.synthesize(
          address,
          { requestId: job.jobId, tenantId: job.ownerId, tenantWeight: 0, speech: speechOfStored(job.spec, job.spec.watermarkPayload ?? 0) },
          { timeoutMs: this.options.jobTimeoutMs, signal: run.controller.signal },
        );
      } catch (err) {
        failure = err;
      }
      try {
        await recorded;
      } catch {
        return; // the submission failed: there is no job to record
      }
      if (response !== undefined) {
        try {
          done = await this.complete(run, job, response);
        } catch (err) {
          // Storing the audio failed (disk, database): a retryable failure of this attempt.
          done = await this.failAttempt(run, job, err);
        }
      } else {
        done = await this.failAttempt(run, job, failure);
      }
    } catch (err) {
      this.options.logger.error('recording a job outcome failed', { job_id: job.jobId, err });
    } finally {
      this.running.delete(run.jobId);
      if (done && run.entry) await this.options.queue.ack([run.entry]).catch((err: unknown) => this.options.logger.warn('queue ack failed', { err }));
      this.kick();
    }
  }

  private async complete(run: Running, job: Dispatched, res: SynthesizeResponse): Promise<boolean> {
    const format = formatOf(res.encoding) ?? (job.spec.format as AudioFormat);
    const stored = await this.options.artifacts.save(res.audio, extensionOf(format));
    const t = await this.options.repo.complete(
      job.jobId,
      {
        sha256: stored.sha256,
        path: stored.path,
        bytes: stored.bytes,
        audioSeconds: res.metrics?.audioSeconds ?? 0,
        format,
        sampleRate: res.sampleRate,
        contentType: res.contentType,
        voice: res.voice,
        engine: res.engine,
        ...(res.clone ? { clone: { ...res.clone } } : {}),
        ...(res.words.length > 0 ? { words: res.words.map((w) => ({ word: w.word, start: w.startSec, end: w.endSec })) } : {}),
      },
      run.nodeId,
      { runner: this.runner, attempt: run.attempt },
    );
    this.excluded.delete(job.jobId);
    if (t?.changed) this.options.notifier.notify(job.jobId);
    else this.options.logger.info('job result ignored: the job had finished or another attempt took it over', { job_id: job.jobId, state: t?.job.state });
    return true;
  }

  /** Records a failed attempt; resolves to true once the outcome is in the database. */
  private async failAttempt(run: Running, job: Dispatched, err: unknown): Promise<boolean> {
    if (run.reason === 'shutdown') return false;
    if (run.reason === 'cancelled') return true;
    const { repo, notifier, logger } = this.options;
    const tts = err instanceof TtsError ? err : new TtsError('INTERNAL_ERROR', undefined, { cause: err });
    // UNAVAILABLE without a catalogue code is the transport failing: the node process is gone.
    const lost = run.reason === 'node_lost' || tts.code === 'TTS_NO_NODE_AVAILABLE';
    if (tts.code === 'TTS_NO_NODE_AVAILABLE') this.options.membership.suspect(run.nodeId);
    const code = lost ? 'JOB_NODE_LOST' : tts.code;
    const message = lost ? `Node ${run.nodeId} was lost while running the job.` : tts.message;
    logger.warn('job attempt failed', { job_id: job.jobId, node_id: run.nodeId, attempt: run.attempt, code, err: err instanceof Error ? err.message : String(err) });
    if (lost || (isErrorCode(code) && ERROR_CATALOGUE[code].retryable)) {
      const failedOn = this.excluded.get(job.jobId) ?? new Set<string>();
      failedOn.add(run.nodeId);
      this.excluded.set(job.jobId, failedOn);
      const next = await repo.retryOrFail(job.jobId, run.attempt, code, message, this.runner);
      if (next?.state === 'retrying') {
        await this.requeue({ jobId: job.jobId, voice: job.spec.voice, engine: job.spec.engine, characters: job.characters }, job.priority);
      } else {
        this.excluded.delete(job.jobId);
      }
    } else {
      await repo.fail(job.jobId, code, message, { runner: this.runner, attempt: run.attempt });
      this.excluded.delete(job.jobId);
    }
    notifier.notify(job.jobId);
    return true;
  }

  /**
   * Adds a job now waiting (retrying) to the queue. When the queue fails, the job stays recorded as
   * waiting and the reconciliation adds it once the queue answers again.
   */
  private async requeue(job: QueuedJob, priority: number): Promise<void> {
    try {
      await this.options.queue.add(encodeQueuedJob(job), priority);
      this.noteQueued();
    } catch (err) {
      this.options.logger.warn('queueing a retry failed; it is queued when the queue answers again', { job_id: job.jobId, err });
      this.noteQueueTrouble();
    }
  }

  /**
   * Requeues running jobs nobody will finish (this scheduler's whose outcome was not recorded, and
   * those of schedulers without a live lease), then reconciles the queue with the waiting jobs.
   */
  private async sweepOrphans(): Promise<void> {
    if (this.stopped) return;
    try {
      for (const orphan of await this.options.repo.listOrphans(this.runner, this.options.leaseMs / 1000)) {
        if (this.running.has(orphan.jobId)) continue;
        const message = orphan.runner === this.runner ? 'The outcome of the attempt was lost.' : 'The scheduler running the job stopped.';
        const next = await this.options.repo.retryOrFail(orphan.jobId, orphan.attempts, 'JOB_NODE_LOST', message, orphan.runner);
        if (next?.state === 'retrying') await this.requeue({ jobId: next.jobId, voice: next.spec.voice, engine: next.spec.engine, characters: next.characters }, next.priority);
        this.options.notifier.notify(orphan.jobId);
      }
      this.kick();
    } catch (err) {
      this.options.logger.warn('orphan sweep failed', { err });
    }
    if (!(await this.reconcile(RECONCILE_MIN_AGE_SECONDS))) this.noteQueueTrouble();
  }

  /** Cancels the calls of running jobs whose node stopped heart-beating or left. */
  private watchdog(): void {
    for (const run of this.running.values()) {
      if (run.attempt === 0 || run.reason !== undefined) continue;
      const entry = this.options.membership.get(run.nodeId);
      if (entry && this.options.membership.healthy(entry)) continue;
      this.options.logger.warn('node lost with a running job', { job_id: run.jobId, node_id: run.nodeId });
      run.reason = 'node_lost';
      run.controller.abort();
    }
  }

  /** Keeps the leases of held and running entries, and takes over entries of silent schedulers. */
  private async renewLeases(): Promise<void> {
    if (this.stopped) return;
    try {
      if (!(await this.options.leases.renew(this.options.consumer, this.runner, this.options.leaseMs)) && !this.leaseLostReported) {
        this.leaseLostReported = true;
        this.options.logger.error('another scheduler process took this SCHEDULER_ID: every replica needs its own id; outcomes of jobs it took over are not recorded here', { scheduler_id: this.options.consumer });
      }
      const leased = [...this.held.map((h) => h.entry), ...[...this.running.values()].flatMap((r) => (r.entry ? [r.entry] : []))];
      await this.options.queue.touch(this.options.consumer, leased);
      const stale = await this.options.queue.claimStale(this.options.consumer, this.options.leaseMs, 100);
      for (const entry of stale) this.accept(entry, true);
      if (stale.length > 0) this.kick();
    } catch (err) {
      this.options.logger.warn('queue lease renewal failed', { err });
    }
  }
}
