import { performance } from 'node:perf_hooks';
import type { ServerWritableStream } from '@grpc/grpc-js';
import type { AudioChunk, SynthesizeRequest } from '@tts/proto/synthesis';
import { TtsError, toServiceError } from '@tts/common';
import { planSynthesis, synthesizeStreaming } from '../domain/pipeline.js';
import type { NodeContext } from '../domain/node-context.js';
import { callCancellation } from './call-cancellation.js';
import { admitCall, jobFromRequest, metricsOf, wordMessages } from './synthesis-call.js';

function write(call: ServerWritableStream<SynthesizeRequest, AudioChunk>, chunk: AudioChunk): Promise<void> {
  return new Promise((resolve) => {
    if (call.write(chunk)) resolve();
    else call.once('drain', resolve);
  });
}

/** SynthesizeStream: stream info first, then audio as each sentence is encoded, then metrics. */
export function synthesizeStream(ctx: NodeContext) {
  return (call: ServerWritableStream<SynthesizeRequest, AudioChunk>): void => {
    const arrived = performance.now();
    const cancellation = callCancellation(call);
    void (async () => {
      try {
        admitCall(ctx);
        if (call.request.speech?.clone) throw new TtsError('TTS_MODE_UNSUPPORTED', 'Clone requests are served whole (Synthesize), not streamed.', { loc: ['speech', 'clone'] });
        const { job, encoding } = jobFromRequest(call.request);
        const plan = planSynthesis({ ...job, streaming: true }, ctx.deps);
        let sequence = 0;
        await write(call, {
          data: Buffer.alloc(0),
          sequence: sequence++,
          info: {
            encoding,
            sampleRate: plan.outputRate,
            voice: plan.voice.id,
            engine: plan.engine.name,
            contentType: plan.contentType,
          },
          metrics: undefined,
          last: false,
          words: [],
        });
        const stream = synthesizeStreaming(plan, ctx.deps, cancellation.signal);
        for (;;) {
          const next = await stream.next();
          if (cancellation.signal.aborted) {
            await stream.return(undefined as never);
            return;
          }
          if (next.done) {
            await write(call, { data: Buffer.alloc(0), sequence: sequence++, info: undefined, metrics: metricsOf(next.value, ctx.nodeId, performance.now() - arrived), last: true, words: [] });
            break;
          }
          await write(call, { data: next.value.bytes, sequence: sequence++, info: undefined, metrics: undefined, last: false, words: wordMessages(next.value.words) });
        }
        cancellation.answered();
        call.end();
      } catch (err) {
        if (cancellation.signal.aborted) return;
        cancellation.answered();
        ctx.logger.warn('synthesize stream failed', { request_id: call.request.requestId, err });
        call.emit('error', toServiceError(err));
      }
    })();
  };
}
