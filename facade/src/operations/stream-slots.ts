/**
 * Slots of long-lived streams (the operations marked `x-long-lived` in the OpenAPI document: the
 * log stream) per credential: one credential cannot hold an unbounded number of responses that
 * never end by themselves. Counted in this process: the cap is per facade replica (N replicas let
 * a credential hold N times the cap), which bounds what each replica spends; a shared counter
 * would outlive a replica that died holding slots.
 */

/** The open streams of each holder, under a cap. */
export class StreamSlots {
  private readonly open = new Map<string, number>();

  /** @param max Streams one holder may have open at once. */
  constructor(readonly max: number) {}

  /** Streams `holder` has open now. */
  openOf(holder: string): number {
    return this.open.get(holder) ?? 0;
  }

  /**
   * Takes a slot for `holder`: returns its release (idempotent), or undefined when the holder
   * already has `max` open.
   */
  acquire(holder: string): (() => void) | undefined {
    const now = this.openOf(holder);
    if (now >= this.max) return undefined;
    this.open.set(holder, now + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = this.openOf(holder) - 1;
      if (left <= 0) this.open.delete(holder);
      else this.open.set(holder, left);
    };
  }
}
