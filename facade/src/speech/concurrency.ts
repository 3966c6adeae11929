/**
 * Per-caller caps on synchronous syntheses in flight (a tier's `concurrentRequests`): one key
 * cannot hold more of the platform's engine slots and queue at once than its tier allows, whatever
 * its rate and quota leave it. Counted by this facade replica (a synchronous request lives on one
 * replica for its whole life).
 */
import { TtsError } from '@tts/common';

/** Releases an in-flight place; calling it again does nothing. */
export type InFlightRelease = () => void;

/** Counts each subject's synchronous syntheses in flight against a cap. */
export class InFlightLimiter {
  private readonly inFlight = new Map<string, number>();

  /**
   * Takes one of `subject`'s `limit` places; throws TTS_CONCURRENCY_LIMIT (429, Retry-After 1) when
   * all are taken.
   */
  acquire(subject: string, limit: number): InFlightRelease {
    const release = this.tryAcquire(subject, limit);
    if (release === undefined) {
      throw new TtsError('TTS_CONCURRENCY_LIMIT', `This caller already has ${this.count(subject)} syntheses in flight; its tier allows ${limit} at once.`, { retryAfterSec: 1 });
    }
    return release;
  }

  /** A place for `subject` under `limit`: its release (idempotent), or undefined when it holds `limit` already. */
  tryAcquire(subject: string, limit: number): InFlightRelease | undefined {
    const n = this.inFlight.get(subject) ?? 0;
    if (n >= limit) return undefined;
    this.inFlight.set(subject, n + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.inFlight.get(subject) ?? 1) - 1;
      if (left <= 0) this.inFlight.delete(subject);
      else this.inFlight.set(subject, left);
    };
  }

  /** Syntheses `subject` has in flight. */
  count(subject: string): number {
    return this.inFlight.get(subject) ?? 0;
  }
}
