/**
 * Admission control and load accounting of a node. Each engine has as many slots as it runs
 * syntheses at once; the pieces of the requests wait for a slot in a bounded queue. The figures
 * here (queue depth, in-flight, queued work by tenant, moving averages of cost) are what NodeStatus
 * reports and what the scheduler and the facade route and admit by.
 *
 * Queue order (see {@link SlotPriority}): the tenants (callers: API keys, studio users, job
 * owners) share each engine by weighted fair queuing (start-time fair queuing: a tenant's next
 * piece is stamped with the engine's virtual time or the tenant's own virtual finish, whichever
 * is later, and each piece moves the tenant's finish on by its characters over the tenant's
 * weight), so a tenant with a backlog of long texts delays another tenant's short request by about
 * one piece, not by its whole backlog. Among the pieces waiting, first the first piece of every
 * request (its first audio), then the others; within one tenant, by their request's arrival. A
 * tenant's request is then never slowed by the same tenant's later requests, except by their first
 * pieces, and by another tenant's only by that tenant's fair share; the facade's admission
 * estimates a request's wait the same way (routing policy, `startSeconds`). Taking the pieces of
 * all requests in turn instead (FIFO by piece) shared the slots among every request in flight:
 * each new one slowed all of them, and at twice the capacity most admitted requests missed their
 * deadline (bench/README.md, `overload`).
 */
import { TtsError } from '@tts/common';

/** Releases a slot. */
export type Release = () => void;

/**
 * Where a piece waits: its tenant's fair share of the engine; a request's first piece goes before
 * the others; within a tenant, by request arrival.
 */
export interface SlotPriority {
  /** The request's number from {@link Admission.nextRequest} (earlier requests first). */
  readonly request: number;
  /** The request's first piece (its first audio). */
  readonly first: boolean;
  /** Who the request is for (SynthesizeRequest.tenant_id); requests without one share "". @default "" */
  readonly tenant?: string;
  /** The tenant's weight: its share of a busy engine relative to other tenants'. @default 1 */
  readonly weight?: number;
  /** Characters of the piece: what it costs its tenant's share. @default 1 */
  readonly characters?: number;
}

interface Waiter {
  /** Order within its tenant: first pieces (0) before the others (1), then by request, then by arrival. */
  readonly key: readonly [number, number, number];
  readonly tenant: string;
  readonly weight: number;
  readonly characters: number;
  readonly resolve: (release: Release) => void;
  readonly reject: (err: unknown) => void;
  readonly signal: AbortSignal | undefined;
  readonly onAbort: () => void;
}

/** One tenant of an engine: its waiting pieces, its virtual finish and its accepted work. */
interface Tenant {
  /** Waiting pieces in their order within the tenant. */
  readonly waiters: Waiter[];
  /** Virtual time at which the work granted to the tenant so far ends at its weight. */
  finish: number;
  /** Characters accepted for the tenant on this engine and not yet synthesized. */
  pendingChars: number;
  weight: number;
}

/** One tenant's accepted and unfinished work on an engine (NodeStatus: EngineInfo.tenants). */
export interface TenantWork {
  readonly tenantId: string;
  /** Estimated compute seconds. */
  readonly queuedWorkSeconds: number;
  readonly weight: number;
}

/** The load of one engine (NodeStatus: EngineInfo). */
export interface EngineLoad {
  readonly capacity: number;
  readonly queuedWorkSeconds: number;
  readonly secondsPerChar: number;
  /** The work above by tenant. */
  readonly tenants: readonly TenantWork[];
}

/** A usable weight: positive and finite, else 1. */
function weightOf(weight: number | undefined): number {
  return weight !== undefined && Number.isFinite(weight) && weight > 0 ? weight : 1;
}

/** Exponential moving average with a fixed weight for the newest sample. */
class Ema {
  value: number;
  constructor(initial: number, private readonly alpha = 0.2) {
    this.value = initial;
  }
  add(sample: number): void {
    if (Number.isFinite(sample)) this.value = this.alpha * sample + (1 - this.alpha) * this.value;
  }
}

/** Whether queue key `a` goes before `b`. */
function before(a: Waiter['key'], b: Waiter['key']): boolean {
  return a[0] !== b[0] ? a[0] < b[0] : a[1] !== b[1] ? a[1] < b[1] : a[2] < b[2];
}

/** Fair semaphore and load figures of one engine. */
class Slots {
  active = 0;
  /** Pieces waiting, all tenants. */
  waiting = 0;
  /** Start tag of the piece granted last: a tenant coming back from idle starts here. */
  virtualTime = 0;
  readonly tenants = new Map<string, Tenant>();
  /** Characters accepted for this engine and not yet synthesized. */
  pendingChars = 0;
  readonly secPerChar = new Ema(0.001);
  constructor(readonly capacity: number) {}

  tenant(name: string, weight: number): Tenant {
    let t = this.tenants.get(name);
    if (!t) {
      t = { waiters: [], finish: this.virtualTime, pendingChars: 0, weight };
      this.tenants.set(name, t);
    }
    return t;
  }

  /** Charges a granted piece to its tenant's share: it starts at the virtual time or the tenant's finish. */
  charge(t: Tenant, characters: number, weight: number): void {
    t.finish = Math.max(this.virtualTime, t.finish) + Math.max(1, characters) / weight;
  }

  /**
   * Takes the next waiter: the tenant whose head piece starts earliest in virtual time, a first
   * piece before any other; ties by arrival. The virtual time moves to the earliest start waiting
   * (not to that of a first piece taken out of its tenant's turn, which would forgive the others'
   * backlogs).
   */
  next(): Waiter | undefined {
    let best: { t: Tenant; w: Waiter; tag: number } | undefined;
    let earliest = Number.POSITIVE_INFINITY;
    for (const t of this.tenants.values()) {
      const w = t.waiters[0];
      if (!w) continue;
      const tag = Math.max(this.virtualTime, t.finish);
      earliest = Math.min(earliest, tag);
      if (!best || w.key[0] < best.w.key[0] || (w.key[0] === best.w.key[0] && (tag < best.tag || (tag === best.tag && w.key[2] < best.w.key[2])))) best = { t, w, tag };
    }
    if (!best) return undefined;
    best.t.waiters.shift();
    this.waiting--;
    this.virtualTime = earliest;
    this.charge(best.t, best.w.characters, best.w.weight);
    return best.w;
  }

  /** Forgets tenants with nothing waiting or accepted whose share is used up (their finish is past). */
  prune(): void {
    for (const [name, t] of this.tenants) {
      if (t.waiters.length === 0 && t.pendingChars === 0 && t.finish <= this.virtualTime) this.tenants.delete(name);
    }
  }
}

/** Options of Admission. */
export interface AdmissionOptions {
  /** Most requests allowed to wait for a slot, all engines together. @default 256 */
  readonly maxQueue: number;
  /** Most interactive sessions open at once. @default 128 */
  readonly maxSessions?: number;
}

/** Admission and load accounting. */
export class Admission {
  private readonly slots = new Map<string, Slots>();
  private waiting = 0;
  private pendingChars = 0;
  private readonly rtf = new Ema(0.05);
  private readonly secPerChar = new Ema(0.001);
  private requests = 0;
  private arrivals = 0;
  private openSessions = 0;

  constructor(private readonly options: AdmissionOptions) {}

  /**
   * Admits an interactive session (SynthesizeInteractive) for its life: its place is released by
   * the returned function. Its pieces take engine slots like any request's; the place bounds the
   * sessions a node holds, whose text may arrive at any moment. Throws TTS_NODE_OVERLOADED when the
   * node holds `maxSessions`.
   */
  openSession(): Release {
    if (this.openSessions >= this.maxSessions()) throw new TtsError('TTS_NODE_OVERLOADED', `The node holds ${this.openSessions} interactive sessions, as many as it admits.`, { retryAfterSec: 1 });
    this.openSessions++;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.openSessions--;
    };
  }

  /** Interactive sessions open. */
  sessions(): number {
    return this.openSessions;
  }

  /** Interactive sessions admitted at once. */
  maxSessions(): number {
    return this.options.maxSessions ?? 128;
  }

  /** The number of a new request, for the {@link SlotPriority} of its pieces. */
  nextRequest(): number {
    return ++this.requests;
  }

  /** Declares an engine and how many syntheses it runs at once. */
  addEngine(name: string, capacity: number): void {
    this.slots.set(name, new Slots(Math.max(1, capacity)));
  }

  /**
   * Waits for a slot of `engine`, in the order of `priority` (without one: after every request
   * numbered so far, in arrival order); rejects with TTS_NODE_OVERLOADED when the queue is full and
   * TTS_CANCELLED on abort.
   */
  acquire(engine: string, signal?: AbortSignal, priority?: SlotPriority): Promise<Release> {
    const s = this.slots.get(engine);
    if (!s) return Promise.reject(new TtsError('TTS_ENGINE_UNAVAILABLE', `Engine "${engine}" is not loaded.`));
    if (signal?.aborted) return Promise.reject(new TtsError('TTS_CANCELLED'));
    const weight = weightOf(priority?.weight);
    const characters = priority?.characters ?? 1;
    const tenant = s.tenant(priority?.tenant ?? '', weight);
    tenant.weight = weight;
    if (s.active < s.capacity && s.waiting === 0) {
      s.active++;
      // Nothing waits: the piece runs now, so the virtual time is its start.
      s.virtualTime = Math.max(s.virtualTime, tenant.finish);
      s.charge(tenant, characters, weight);
      return Promise.resolve(this.releaser(s));
    }
    if (this.waiting >= this.options.maxQueue) {
      const retryAfterSec = Math.max(1, Math.ceil(this.queuedWorkSeconds() / Math.max(1, s.capacity)));
      return Promise.reject(new TtsError('TTS_NODE_OVERLOADED', 'The node queue is full.', { retryAfterSec }));
    }
    return new Promise<Release>((resolve, reject) => {
      const onAbort = (): void => {
        const i = tenant.waiters.indexOf(waiter);
        if (i >= 0) {
          tenant.waiters.splice(i, 1);
          s.waiting--;
          this.waiting--;
        }
        reject(new TtsError('TTS_CANCELLED'));
      };
      const key = [priority?.first === true ? 0 : 1, priority?.request ?? this.requests + 1, ++this.arrivals] as const;
      const waiter: Waiter = { key, tenant: priority?.tenant ?? '', weight, characters, resolve, reject, signal, onAbort };
      // Queues are short (maxQueue): a linear insertion keeps them in order.
      let at = tenant.waiters.length;
      while (at > 0 && before(key, tenant.waiters[at - 1]!.key)) at--;
      tenant.waiters.splice(at, 0, waiter);
      s.waiting++;
      this.waiting++;
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  private releaser(s: Slots): Release {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const next = s.next();
      s.prune();
      if (next) {
        this.waiting--;
        next.signal?.removeEventListener('abort', next.onAbort);
        next.resolve(this.releaser(s));
      } else {
        s.active--;
      }
    };
  }

  /** How many syntheses `engine` runs at once (0 when it is not loaded). */
  engineCapacity(engine: string): number {
    return this.slots.get(engine)?.capacity ?? 0;
  }

  /**
   * Adds characters a request of `tenant` (weight `weight`) to `engine` still has to synthesize
   * (negative to remove).
   */
  trackChars(engine: string, delta: number, tenant = '', weight = 1): void {
    this.pendingChars = Math.max(0, this.pendingChars + delta);
    const s = this.slots.get(engine);
    if (!s) return;
    s.pendingChars = Math.max(0, s.pendingChars + delta);
    const t = s.tenant(tenant, weightOf(weight));
    t.pendingChars = Math.max(0, t.pendingChars + delta);
    if (delta < 0) s.prune();
  }

  /** Feeds the moving averages (the node's and `engine`'s) with one finished synthesis step. */
  record(engine: string, chars: number, computeSec: number, audioSec: number): void {
    if (chars > 0) {
      this.secPerChar.add(computeSec / chars);
      this.slots.get(engine)?.secPerChar.add(computeSec / chars);
    }
    if (audioSec > 0) this.rtf.add(computeSec / audioSec);
  }

  /**
   * The load of one engine: its slots, the estimated compute seconds of the work accepted for it
   * and not finished, and its moving average of compute seconds per character (what the facade's
   * admission estimates a request's wait and cost from). Undefined when the engine is not loaded.
   */
  engineLoad(engine: string): EngineLoad | undefined {
    const s = this.slots.get(engine);
    if (!s) return undefined;
    const spc = s.secPerChar.value;
    const tenants: TenantWork[] = [];
    for (const [tenantId, t] of s.tenants) {
      if (t.pendingChars > 0) tenants.push({ tenantId, queuedWorkSeconds: t.pendingChars * spc, weight: t.weight });
    }
    return { capacity: s.capacity, queuedWorkSeconds: s.pendingChars * spc, secondsPerChar: spc, tenants };
  }

  /** Requests waiting for a slot. */
  queueDepth(): number {
    return this.waiting;
  }

  /** Requests holding a slot. */
  inFlight(): number {
    let n = 0;
    for (const s of this.slots.values()) n += s.active;
    return n;
  }

  /** Total slots across engines. */
  capacity(): number {
    let n = 0;
    for (const s of this.slots.values()) n += s.capacity;
    return n;
  }

  /** Moving average of compute seconds per audio second. */
  realTimeFactor(): number {
    return this.rtf.value;
  }

  /** Moving average of compute seconds per input character. */
  secondsPerChar(): number {
    return this.secPerChar.value;
  }

  /** Estimated compute seconds of work accepted but not finished. */
  queuedWorkSeconds(): number {
    return this.pendingChars * this.secPerChar.value;
  }
}
