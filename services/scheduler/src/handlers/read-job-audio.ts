import type { ServerWritableStream } from '@grpc/grpc-js';
import type { JobAudioChunk, ReadJobAudioRequest } from '@tts/proto/scheduler';
import type { SchedulerContext } from '../domain/scheduler-context.js';
import { callerOf, checkVisible } from './callers.js';
import { resultMessage } from './job-messages.js';
import { jobCallError } from './jobs.js';

/**
 * ReadJobAudio: the stored audio of a completed job in 64 KiB chunks, the first carrying the
 * result (content type, size, hash). JOB_NOT_READY / JOB_FAILED / JOB_CANCELLED otherwise.
 */
export function readJobAudio(ctx: SchedulerContext) {
  return (call: ServerWritableStream<ReadJobAudioRequest, JobAudioChunk>): void => {
    void (async () => {
      try {
        const caller = await callerOf(ctx, call.metadata);
        await checkVisible(ctx, caller, call.request.jobId);
        const { job, stream } = await ctx.jobs.audio(call.request.jobId);
        call.on('cancelled', () => stream.destroy());
        let first = true;
        for await (const chunk of stream) {
          const data = chunk as Buffer;
          const ok = call.write(first && job.result ? { data, result: resultMessage(job.result) } : { data, result: undefined });
          first = false;
          if (!ok) await new Promise((resolve) => call.once('drain', resolve));
        }
        if (first && job.result) call.write({ data: Buffer.alloc(0), result: resultMessage(job.result) });
        call.end();
      } catch (err) {
        call.emit('error', jobCallError(err));
      }
    })();
  };
}
