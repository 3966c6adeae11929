/**
 * Book-keeping of the fault-injection tests: every job a test submits (and every submission
 * refused, with its code), then each job's final state and number of `completed` events. A job is
 * lost when it reaches no final state by the deadline, duplicated when it completed more than once.
 */
import assert from 'node:assert/strict';

/** What a job came to. */
export interface JobOutcome {
  /** completed, failed, cancelled, or the unfinished state it was left in. */
  readonly state: string;
  /** `completed` events recorded for the job. */
  readonly completedEvents: number;
  /** The error code of a failed job. */
  readonly errorCode?: string | undefined;
  /** True when the job was retried (an attempt lost or failed retryably). */
  readonly retried: boolean;
}

/** The figures a fault test prints and docs/reliability.md records. */
export interface FaultFigures {
  readonly fault: string;
  readonly submitted: number;
  /** Submissions refused with an error code (not jobs: the client was told). */
  readonly refused: Readonly<Record<string, number>>;
  readonly completed: number;
  /** Jobs that needed more than one attempt. */
  readonly retried: number;
  /** Failed jobs by error code. */
  readonly failed: Readonly<Record<string, number>>;
  readonly lost: number;
  readonly duplicated: number;
}

const FINAL = new Set(['completed', 'failed', 'cancelled']);

/** The jobs of one fault scenario. */
export class FaultLedger {
  readonly jobIds: string[] = [];
  /** Each job's last known state, as `settle` left it. */
  readonly states = new Map<string, string>();
  private readonly refusals: Record<string, number> = {};

  constructor(readonly fault: string) {}

  /** Runs one submission; records the job id it resolves to, or the code it was refused with. */
  async submit(send: () => Promise<string>, codeOf: (err: unknown) => string): Promise<string | undefined> {
    try {
      const jobId = await send();
      this.jobIds.push(jobId);
      return jobId;
    } catch (err) {
      const code = codeOf(err);
      this.refusals[code] = (this.refusals[code] ?? 0) + 1;
      return undefined;
    }
  }

  /**
   * Waits (polling `outcome` until `timeoutMs`) for every job to reach a final state, then asserts
   * none was lost or duplicated, every failure and refusal carries a catalogue code other than
   * INTERNAL_ERROR, prints the figures and resolves to them.
   */
  async settle(outcome: (jobId: string) => Promise<JobOutcome | undefined>, timeoutMs: number): Promise<FaultFigures> {
    const last = new Map<string, JobOutcome>();
    const deadline = Date.now() + timeoutMs;
    let open = [...this.jobIds];
    while (open.length > 0 && Date.now() < deadline) {
      const results = await Promise.all(open.map(async (id) => [id, await outcome(id).catch(() => undefined)] as const));
      for (const [id, o] of results) {
        if (!o) continue;
        last.set(id, o);
        this.states.set(id, o.state);
      }
      open = open.filter((id) => !FINAL.has(last.get(id)?.state ?? ''));
      if (open.length > 0) await new Promise((r) => setTimeout(r, 250));
    }
    const failed: Record<string, number> = {};
    let completed = 0;
    let duplicated = 0;
    let retried = 0;
    for (const id of this.jobIds) {
      const o = last.get(id);
      if (o?.retried) retried++;
      if (o?.state === 'completed') completed++;
      if (o?.state === 'failed') failed[o.errorCode ?? 'none'] = (failed[o.errorCode ?? 'none'] ?? 0) + 1;
      if ((o?.completedEvents ?? 0) > 1) duplicated++;
    }
    const figures: FaultFigures = { fault: this.fault, submitted: this.jobIds.length, refused: { ...this.refusals }, completed, retried, failed, lost: open.length, duplicated };
    console.log(`fault figures: ${JSON.stringify(figures)}`);
    assert.deepEqual(open.map((id) => `${id}: ${last.get(id)?.state ?? 'unknown'}`), [], `${this.fault}: jobs left unfinished (lost)`);
    assert.equal(duplicated, 0, `${this.fault}: jobs completed more than once`);
    for (const code of [...Object.keys(failed), ...Object.keys(this.refusals)]) assert.ok(/^[A-Z][A-Z0-9_]+$/.test(code) && code !== 'INTERNAL_ERROR', `${this.fault}: a failure without a clear code: ${code}`);
    for (const id of this.jobIds) {
      const o = last.get(id)!;
      if (o.state === 'completed') assert.equal(o.completedEvents, 1, `${this.fault}: job ${id} has ${o.completedEvents} completed events`);
    }
    return figures;
  }
}
