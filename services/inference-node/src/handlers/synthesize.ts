import { performance } from 'node:perf_hooks';
import type { sendUnaryData, ServerUnaryCall } from '@grpc/grpc-js';
import type { CloneReport, SynthesizeRequest, SynthesizeResponse } from '@tts/proto/synthesis';
import { PROBE_CHARS } from '../cloning/clone.js';
import { toServiceError } from '@tts/common';
import { planSynthesis, synthesizeWhole } from '../domain/pipeline.js';
import type { NodeContext } from '../domain/node-context.js';
import { callCancellation } from './call-cancellation.js';
import { admitCall, jobFromRequest, metricsOf, wordMessages } from './synthesis-call.js';

/** Synthesize: the whole utterance in one response. */
export function synthesize(ctx: NodeContext) {
  return (call: ServerUnaryCall<SynthesizeRequest, SynthesizeResponse>, callback: sendUnaryData<SynthesizeResponse>): void => {
    const arrived = performance.now();
    const cancellation = callCancellation(call);
    void (async () => {
      try {
        admitCall(ctx);
        const asked = jobFromRequest(call.request);
        let job = asked.job;
        const clone = call.request.speech?.clone;
        // A clone request speaks with the nearest voice, adapted to the reference (cloning/clone.ts).
        let cloneReport: CloneReport | undefined;
        if (clone) {
          const cp = await ctx.cloner.plan(clone.referenceAudio, cancellation.signal);
          const voiced = { ...job, voice: cp.voice, engine: '', reference: { audio: clone.referenceAudio, filename: clone.referenceFilename } };
          const adapted = { ...voiced, speed: (job.speed || 1) * cp.speed, pitchRatio: cp.pitchRatio };
          const probe = (j: typeof job): Promise<Uint8Array> =>
            synthesizeWhole(planSynthesis({ ...j, text: job.text.slice(0, PROBE_CHARS), format: 'wav', sampleRate: 0 }, ctx.deps), ctx.deps, cancellation.signal).then((r) => r.audio);
          cloneReport = await ctx.cloner.decide(cp, (a) => probe(a ? adapted : voiced), cancellation.signal);
          job = cloneReport.adapted ? adapted : voiced;
        }
        const plan = planSynthesis(job, ctx.deps);
        const { audio, stats, words } = await synthesizeWhole(plan, ctx.deps, cancellation.signal);
        cancellation.answered();
        callback(null, {
          audio,
          encoding: asked.encoding,
          sampleRate: plan.outputRate,
          voice: plan.voice.id,
          engine: plan.engine.name,
          contentType: plan.contentType,
          metrics: metricsOf(stats, ctx.nodeId, performance.now() - arrived),
          clone: cloneReport,
          words: wordMessages(words),
        });
      } catch (err) {
        cancellation.answered();
        ctx.logger.warn('synthesize failed', { request_id: call.request.requestId, err });
        callback(toServiceError(err));
      }
    })();
  };
}
