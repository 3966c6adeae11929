/**
 * Admission control and load accounting of a node. Each engine has as many slots as it runs
 * syntheses at once; the pieces of the requests wait for a slot in a bounded queue. The figures
 * here (queue depth, in-flight, queued work, moving averages of cost) are what NodeStatus reports
 * and what the scheduler and the facade route and admit by.
 *
 * Queue order (see {@link SlotPriority}): first the first piece of every request (its first
 * audio), then the other pieces by their request's arrival. A request is then never slowed by the
 * requests that arrive after it, except by their first pieces, so its finish is what the admission
 * estimate takes it for: the work accepted before it, spread over the slots, plus its own. Taking
 * the pieces of all requests in turn instead (FIFO by piece) shared the slots among every request
 * in flight: each new one slowed all of them, and at twice the capacity 33 of 55 admitted requests
 * missed their deadline (bench overload).
 */
import { TtsError } from '@tts/common';

/** Releases a slot. */
export type Release = () => void;

/** Where a piece waits: a request's first piece goes before the others; then by request arrival. */
export interface SlotPriority {
  /** The request's number from {@link Admission.nextRequest} (earlier requests first). */
  readonly request: number;
  /** The request's first piece (its first audio). */
  readonly first: boolean;
}

interface Waiter {
  /** Queue order: first pieces (0) before the others (1), then by request, then by arrival. */
  readonly key: readonly [number, number, number];
  readonly resolve: (release: Release) => void;
  readonly reject: (err: unknown) => void;
  readonly signal: AbortSignal | undefined;
  readonly onAbort: () => void;
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

/** Ordered semaphore and load figures of one engine. */
class Slots {
  active = 0;
  readonly waiters: Waiter[] = [];
  /** Characters accepted for this engine and not yet synthesized. */
  pendingChars = 0;
  readonly secPerChar = new Ema(0.001);
  constructor(readonly capacity: number) {}
}

/** Options of Admission. */
export interface AdmissionOptions {
  /** Most requests allowed to wait for a slot, all engines together. @default 256 */
  readonly maxQueue: number;
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

  constructor(private readonly options: AdmissionOptions) {}

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
    if (s.active < s.capacity && s.waiters.length === 0) {
      s.active++;
      return Promise.resolve(this.releaser(s));
    }
    if (this.waiting >= this.options.maxQueue) {
      const retryAfterSec = Math.max(1, Math.ceil(this.queuedWorkSeconds() / Math.max(1, s.capacity)));
      return Promise.reject(new TtsError('TTS_NODE_OVERLOADED', 'The node queue is full.', { retryAfterSec }));
    }
    return new Promise<Release>((resolve, reject) => {
      const onAbort = (): void => {
        const i = s.waiters.indexOf(waiter);
        if (i >= 0) {
          s.waiters.splice(i, 1);
          this.waiting--;
        }
        reject(new TtsError('TTS_CANCELLED'));
      };
      const key = [priority?.first === true ? 0 : 1, priority?.request ?? this.requests + 1, ++this.arrivals] as const;
      const waiter: Waiter = { key, resolve, reject, signal, onAbort };
      // Queues are short (maxQueue): a linear insertion keeps them in order.
      let at = s.waiters.length;
      while (at > 0 && before(key, s.waiters[at - 1]!.key)) at--;
      s.waiters.splice(at, 0, waiter);
      this.waiting++;
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  private releaser(s: Slots): Release {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const next = s.waiters.shift();
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

  /** Adds characters a request to `engine` still has to synthesize (negative to remove). */
  trackChars(engine: string, delta: number): void {
    this.pendingChars = Math.max(0, this.pendingChars + delta);
    const s = this.slots.get(engine);
    if (s) s.pendingChars = Math.max(0, s.pendingChars + delta);
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
  engineLoad(engine: string): { capacity: number; queuedWorkSeconds: number; secondsPerChar: number } | undefined {
    const s = this.slots.get(engine);
    if (!s) return undefined;
    return { capacity: s.capacity, queuedWorkSeconds: s.pendingChars * s.secPerChar.value, secondsPerChar: s.secPerChar.value };
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
