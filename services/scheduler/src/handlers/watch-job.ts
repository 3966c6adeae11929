import type { ServerWritableStream } from '@grpc/grpc-js';
import type { JobEvent, WatchJobRequest } from '@tts/proto/scheduler';
import { TtsError, isTerminalJobState } from '@tts/common';
import type { SchedulerContext } from '../domain/scheduler-context.js';
import { callerOf, checkVisible } from './callers.js';
import { eventMessage, stateMessage } from './job-messages.js';
import { jobCallError } from './jobs.js';

/** Re-read period of a watch, for events written by another scheduler replica. */
const POLL_MS = 1000;

/**
 * WatchJob: the job's events after `after_event_id`, then live ones as they are recorded; the
 * stream ends after the terminal event (at once when the job had already finished).
 */
export function watchJob(ctx: SchedulerContext) {
  return (call: ServerWritableStream<WatchJobRequest, JobEvent>): void => {
    const { jobId } = call.request;
    let last = call.request.afterEventId;
    let done = false;
    let reading = false;
    let changedWhileReading = false;
    const finish = (err?: unknown): void => {
      if (done) return;
      done = true;
      clearInterval(timer);
      unsubscribeJob();
      unsubscribeShutdown();
      if (err !== undefined) call.emit('error', jobCallError(err));
      else call.end();
    };
    const read = async (): Promise<void> => {
      if (reading) {
        changedWhileReading = true;
        return;
      }
      reading = true;
      try {
        do {
          changedWhileReading = false;
          for (;;) {
            const page = await ctx.jobs.events(jobId, last, 500);
            for (const e of page.events) {
              if (done) return;
              const event = eventMessage(e);
              call.write(event);
              last = e.eventId;
              if (isTerminalJobState(event.state)) return finish();
            }
            if (page.events.length < 500) {
              // A terminal state whose event was already sent before after_event_id: nothing more will come.
              if (isTerminalJobState(stateMessage(page.state)) && last >= page.lastEventId) return finish();
              break;
            }
          }
        } while (changedWhileReading && !done);
      } catch (err) {
        finish(err);
      } finally {
        reading = false;
      }
    };
    let unsubscribeJob = (): void => undefined;
    let unsubscribeShutdown = (): void => undefined;
    let timer: NodeJS.Timeout | undefined;
    call.on('cancelled', () => finish());
    // The caller may watch only a job it may see (callers.ts).
    void callerOf(ctx, call.metadata)
      .then(async (caller) => {
        await checkVisible(ctx, caller, jobId);
        if (done) return;
        unsubscribeJob = ctx.jobs.notifier.subscribe(jobId, () => void read());
        unsubscribeShutdown = ctx.jobs.notifier.onShutdown(() => finish(new TtsError('SERVICE_SHUTTING_DOWN', 'The scheduler is shutting down; watch again.', { retryAfterSec: 1 })));
        timer = setInterval(() => void read(), POLL_MS);
        void read();
      })
      .catch((err: unknown) => finish(err));
  };
}
