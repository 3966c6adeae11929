/**
 * Usage of jobs. A job's audio is synthesized after the request that submitted it was metered (and
 * perhaps by a scheduler on another database), so its seconds cannot be known then: the
 * submission notes its job as pending (`job_usage`), and every facade settles pending jobs as the
 * scheduler reports them ended, with the seconds the node reported for the job's audio (its
 * result; 0 for a failed or cancelled job). The usage views add them to the submitting request, so
 * a job's audio is counted like that of every other path.
 */
import { JobState } from '@tts/proto/scheduler';
import type { Logger } from '@tts/common';
import type { JobUsageRepository } from '../data/index.js';
import type { JobsGateway } from './jobs-gateway.js';

/** Pending jobs looked at per sweep, oldest first. */
const SWEEP_BATCH = 500;

/** Notes submitted jobs and settles their audio once they end. */
export class JobUsage {
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<void> | undefined;

  constructor(
    private readonly repo: JobUsageRepository,
    private readonly jobs: Pick<JobsGateway, 'get'>,
    private readonly logger: Logger,
    /** How often pending jobs are looked up. */
    private readonly intervalMs: number,
  ) {}

  /** Notes the job a metered request submitted; its audio is counted once it ends. */
  submitted(requestId: string, jobId: string): Promise<void> {
    return this.repo.addPending(requestId, jobId);
  }

  /** Starts the periodic sweep. */
  start(): void {
    this.timer ??= setInterval(() => void this.sweep(), this.intervalMs);
    this.timer.unref();
  }

  /** Stops the sweep and waits for one under way. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.sweeping;
  }

  /** Settles the pending jobs that have ended (one sweep at a time). */
  sweep(): Promise<void> {
    this.sweeping ??= this.settleEnded().finally(() => (this.sweeping = undefined));
    return this.sweeping;
  }

  private async settleEnded(): Promise<void> {
    try {
      for (const pending of await this.repo.pending(SWEEP_BATCH)) {
        const job = await this.jobs.get(pending.jobId);
        // A job the scheduler no longer knows (expired) has no audio left to count.
        if (job === undefined) await this.repo.settle(pending.requestId, 0);
        else if (job.state === JobState.JOB_STATE_COMPLETED) await this.repo.settle(pending.requestId, job.result?.audioSeconds ?? 0);
        else if (job.state === JobState.JOB_STATE_FAILED || job.state === JobState.JOB_STATE_CANCELLED) await this.repo.settle(pending.requestId, 0);
      }
    } catch (err) {
      // The scheduler or the database is unreachable: the jobs stay pending for the next sweep.
      this.logger.warn('job usage sweep failed', { err });
    }
  }
}
