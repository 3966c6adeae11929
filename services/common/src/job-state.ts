/** Facts about a job's state (the contract's `tts.v1.JobState`) that the scheduler, the facade and the tests share. */
import { JobState } from '@tts/proto/scheduler';

const TERMINAL: ReadonlySet<JobState> = new Set([JobState.JOB_STATE_COMPLETED, JobState.JOB_STATE_FAILED, JobState.JOB_STATE_CANCELLED]);

/** True for the states a job never leaves: completed, failed and cancelled. */
export function isTerminalJobState(state: JobState): boolean {
  return TERMINAL.has(state);
}
