/**
 * What a job queue entry carries: the job id plus what routing needs (voice, engine, characters),
 * so the dispatcher can place a job without reading it first. The job row stays the source of
 * truth: an entry is only a pointer, and a stale or duplicate one is dropped when its job is not
 * waiting any more.
 */

/** A queued job as routing sees it. */
export interface QueuedJob {
  readonly jobId: string;
  readonly voice: string;
  readonly engine: string;
  readonly characters: number;
}

/** Encodes a queue item. */
export function encodeQueuedJob(job: QueuedJob): string {
  return JSON.stringify({ j: job.jobId, v: job.voice, e: job.engine, c: job.characters });
}

/** Decodes a queue item; undefined when it is not one (an entry to drop). */
export function decodeQueuedJob(item: string): QueuedJob | undefined {
  try {
    const o = JSON.parse(item) as { j?: unknown; v?: unknown; e?: unknown; c?: unknown };
    if (typeof o.j !== 'string' || o.j === '') return undefined;
    return {
      jobId: o.j,
      voice: typeof o.v === 'string' ? o.v : '',
      engine: typeof o.e === 'string' ? o.e : '',
      characters: typeof o.c === 'number' && Number.isFinite(o.c) ? o.c : 0,
    };
  } catch {
    return undefined;
  }
}
