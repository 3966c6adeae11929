import { performance } from 'node:perf_hooks';
import type { sendUnaryData, ServerUnaryCall } from '@grpc/grpc-js';
import type { SynthesizeRequest, SynthesizeResponse } from '@tts/proto/synthesis';
import { toServiceError, encodingOf } from '@tts/common';
import { planSynthesis, synthesizeWhole } from '../domain/pipeline.js';
import type { NodeContext } from '../domain/node-context.js';
import { admitCall, metricsOf } from './call-admission.js';
import { jobFromRequest } from './job-from-request.js';

/** Synthesize: the whole utterance in one response. */
export function synthesize(ctx: NodeContext) {
  return (call: ServerUnaryCall<SynthesizeRequest, SynthesizeResponse>, callback: sendUnaryData<SynthesizeResponse>): void => {
    const arrived = performance.now();
    const controller = new AbortController();
    // grpc-js reports 'cancelled' when the stream closes, also after a normal answer: only a
    // cancellation before the answer stops the work.
    let answered = false;
    call.on('cancelled', () => {
      if (!answered) controller.abort();
    });
    void (async () => {
      try {
        admitCall(ctx);
        let job = jobFromRequest(call.request);
        const clone = call.request.speech?.clone;
        // A clone request speaks with the nearest voice, adapted to the reference (cloning/clone.ts).
        const clonePlan = clone ? await ctx.cloner.plan(clone.referenceAudio, controller.signal) : undefined;
        if (clone && clonePlan) {
          job = { ...job, voice: clonePlan.voice, engine: '', speed: (job.speed || 1) * clonePlan.speed, pitchRatio: clonePlan.pitchRatio, reference: { audio: clone.referenceAudio, filename: clone.referenceFilename } };
        }
        const plan = planSynthesis(job, ctx.deps);
        const { audio, stats } = await synthesizeWhole(plan, ctx.deps, controller.signal);
        const cloneReport = clonePlan ? await ctx.cloner.report(clonePlan, audio, controller.signal) : undefined;
        answered = true;
        callback(null, {
          audio,
          encoding: encodingOf(plan.job.format),
          sampleRate: plan.outputRate,
          voice: plan.voice.id,
          engine: plan.engine.name,
          contentType: plan.contentType,
          metrics: metricsOf(stats, ctx.nodeId, arrived),
          clone: cloneReport,
        });
      } catch (err) {
        answered = true;
        ctx.logger.warn('synthesize failed', { request_id: call.request.requestId, err });
        callback(toServiceError(err));
      }
    })();
  };
}
