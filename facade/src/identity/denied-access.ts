/**
 * Repeated denials in the job access audit, aggregated: the first denial of one client address for
 * one job, endpoint and reason is recorded at once (`attempts` 1); the ones that follow within the
 * window (TTS_AUDIT_DENIAL_WINDOW_MS) are counted and recorded as one record with their count when
 * the window closes, or when the facade stops. 150 wrong job-token guesses in a minute make two
 * records, not 150, and no denial goes unrecorded.
 */
import type { Logger } from '@tts/common';
import type { JobAccessInput } from '../data/index.js';

/** A denial to record, with the client address it came from. */
export interface DeniedAccess extends JobAccessInput {
  readonly clientAddress: string;
}

interface Window {
  readonly timer: NodeJS.Timeout;
  repeats: number;
  /** When the first repeat came (the aggregated record's time). */
  firstRepeatAt: Date | undefined;
  /** The last repeat (its request id goes into the record). */
  last: DeniedAccess | undefined;
}

/** Options of DeniedAccessAggregator. */
export interface DeniedAccessOptions {
  /** Writes one record. */
  readonly write: (input: JobAccessInput) => Promise<void>;
  /** How long repeats are gathered after a first denial, ms; 0 = every denial is its own record. */
  readonly windowMs: number;
  readonly logger: Logger;
  /** Windows open at once; past this the oldest is closed early. @default 10000 */
  readonly maxOpen?: number;
}

/** Aggregates repeated denials (see the module comment). */
export class DeniedAccessAggregator {
  private readonly open = new Map<string, Window>();
  private readonly maxOpen: number;

  constructor(private readonly options: DeniedAccessOptions) {
    this.maxOpen = options.maxOpen ?? 10_000;
  }

  /** Records one denial: at once when it opens a window, else counted into the window's record. */
  async record(denial: DeniedAccess): Promise<void> {
    if (this.options.windowMs <= 0) {
      await this.options.write({ ...denial, attempts: 1 });
      return;
    }
    const key = JSON.stringify([denial.clientAddress, denial.jobId, denial.endpoint, denial.reason]);
    const window = this.open.get(key);
    if (window) {
      window.repeats += 1;
      window.firstRepeatAt ??= new Date();
      window.last = denial;
      return;
    }
    if (this.open.size >= this.maxOpen) {
      const oldest = this.open.keys().next().value;
      if (oldest !== undefined) void this.close(oldest);
    }
    const timer = setTimeout(() => void this.close(key), this.options.windowMs);
    timer.unref();
    this.open.set(key, { timer, repeats: 0, firstRepeatAt: undefined, last: undefined });
    await this.options.write({ ...denial, attempts: 1 });
  }

  /** Closes every window, writing the records of their repeats (shutdown; tests before reading). */
  async flush(): Promise<void> {
    await Promise.all([...this.open.keys()].map((key) => this.close(key)));
  }

  private async close(key: string): Promise<void> {
    const window = this.open.get(key);
    if (!window) return;
    this.open.delete(key);
    clearTimeout(window.timer);
    const last = window.last;
    if (window.repeats === 0 || last === undefined) return;
    try {
      await this.options.write({ ...last, attempts: window.repeats, at: window.firstRepeatAt });
    } catch (err) {
      this.options.logger.warn('aggregated job access denials could not be recorded', { attempts: window.repeats, job_id: last.jobId, err });
    }
  }
}
