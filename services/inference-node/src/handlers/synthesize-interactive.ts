/**
 * SynthesizeInteractive: one interactive session per call (domain/interactive-session.ts). The
 * first message must be `start`: the node admits the call (READY, a free session place), reads
 * the settings into a job like a SynthesizeRequest's and resolves them once, and answers
 * `started`. Then each message goes to its context. Errors of a context are messages; errors of
 * the session end the call with a status carrying the catalogue code.
 *
 * Backpressure: while the client does not read the audio, writes wait and the node stops reading
 * the client's messages (its buffers stay bounded: the contexts' text by max_buffered_chars, the
 * encoders' output by their high-water mark). The client's half-close ends every context's input;
 * its cancellation cancels every context. The session's place is released when the call ends.
 */
import { performance } from 'node:perf_hooks';
import type { ServerDuplexStream } from '@grpc/grpc-js';
import { ContextOutcome, type InteractiveRequest, type InteractiveResponse, type InteractiveStart } from '@tts/proto/synthesis';
import { TtsError, toServiceError } from '@tts/common';
import { setupSynthesis } from '../domain/pipeline.js';
import { InteractiveSession, type SessionEvent } from '../domain/interactive-session.js';
import type { NodeContext } from '../domain/node-context.js';
import type { Release } from '../domain/admission.js';
import { admitCall, jobFromRequest, metricsOf, wordMessages } from './synthesis-call.js';

const OUTCOMES = { completed: ContextOutcome.CONTEXT_OUTCOME_COMPLETED, cancelled: ContextOutcome.CONTEXT_OUTCOME_CANCELLED, failed: ContextOutcome.CONTEXT_OUTCOME_FAILED } as const;

/** The contract's form of a session event. */
function responseOf(event: SessionEvent, nodeId: string): InteractiveResponse {
  switch (event.kind) {
    case 'audio':
      return { message: { $case: 'audio', value: { contextId: event.contextId, data: event.bytes, words: wordMessages(event.words), sequence: event.sequence } } };
    case 'error':
      return { message: { $case: 'error', value: { contextId: event.contextId, code: event.error.code, message: event.error.message } } };
    case 'final':
      return {
        message: {
          $case: 'final',
          value: {
            contextId: event.contextId,
            outcome: OUTCOMES[event.outcome],
            charactersSpoken: event.charactersSpoken,
            charactersInSynthesis: event.charactersInSynthesis,
            charactersDropped: event.charactersDropped,
            metrics: metricsOf(event.stats, nodeId, event.stats.totalMs),
          },
        },
      };
  }
}

/** SynthesizeInteractive: text pieces in, each context's audio, errors and final message out. */
export function synthesizeInteractive(ctx: NodeContext) {
  return (call: ServerDuplexStream<InteractiveRequest, InteractiveResponse>): void => {
    let session: InteractiveSession | undefined;
    let release: Release | undefined;
    let requestId = '';
    /** The call is over (answered, failed or cancelled): nothing more is written. */
    let closed = false;
    /** Writers waiting for the client to read. */
    const waiting = new Set<() => void>();
    const wake = (): void => {
      for (const resolve of waiting) resolve();
      waiting.clear();
    };
    call.on('drain', () => {
      wake();
      call.resume();
    });
    const write = (message: InteractiveResponse): Promise<void> => {
      if (closed) return Promise.resolve();
      if (call.write(message)) return Promise.resolve();
      // The client is not reading: stop reading its messages until it does.
      call.pause();
      return new Promise((resolve) => waiting.add(resolve));
    };
    const close = (): void => {
      closed = true;
      wake();
      release?.();
    };
    const fail = (err: unknown): void => {
      if (closed) return;
      close();
      const level = err instanceof TtsError && err.spec.http < 500 ? 'info' : 'warn';
      ctx.logger[level]('interactive session refused', { request_id: requestId || undefined, err });
      void session?.cancelAll();
      call.emit('error', toServiceError(err));
    };

    const open = (start: InteractiveStart): void => {
      requestId = start.requestId;
      admitCall(ctx);
      if (start.speech?.clone) throw new TtsError('TTS_MODE_UNSUPPORTED', 'Cloning is not available in interactive sessions.', { loc: ['speech', 'clone'] });
      if (start.speech !== undefined && start.speech.text !== '') throw new TtsError('VALIDATION_FAILED', 'A session\'s settings carry no text: send it in text messages.', { loc: ['speech', 'text'] });
      const asked = jobFromRequest(start);
      const { encoding } = asked;
      // Each piece is streamed: its first chunk is cut at a clause for quick audio after a flush.
      const job = { ...asked.job, streaming: true };
      const setup = setupSynthesis(job, ctx.deps);
      release = ctx.admission.openSession();
      session = new InteractiveSession(job, setup, ctx.deps, ctx.sessionLimits, (event) => write(responseOf(event, ctx.nodeId)), (contextId, error) => {
        const level = error.spec.http < 500 ? 'info' : 'warn';
        ctx.logger[level]('interactive context failed', { request_id: requestId || undefined, context_id: contextId, err: error });
      });
      void write({
        message: {
          $case: 'started',
          value: {
            info: { encoding, sampleRate: setup.outputRate, voice: setup.voice.id, engine: setup.engine.name, contentType: setup.contentType },
            nodeId: ctx.nodeId,
            maxContexts: ctx.sessionLimits.maxContexts,
            maxBufferedChars: ctx.sessionLimits.maxBufferedChars,
          },
        },
      });
    };

    const handle = (req: InteractiveRequest): void => {
      const m = req.message;
      if (!session) {
        if (m?.$case !== 'start') throw new TtsError('STREAM_PROTOCOL_VIOLATION', 'The first message of a session must be `start`.');
        open(m.value);
        return;
      }
      switch (m?.$case) {
        case 'text':
          session.text(m.value.contextId, m.value.text);
          return;
        case 'flush':
          session.flush(m.value.contextId);
          return;
        case 'cancel':
          session.cancel(m.value.contextId);
          return;
        case 'end':
          session.end(m.value.contextId);
          return;
        default:
          // A second `start`, or an empty message: refused, the session goes on.
          void write({ message: { $case: 'error', value: { contextId: '', code: 'STREAM_PROTOCOL_VIOLATION', message: m === undefined ? 'The message is empty.' : 'The session has started already.' } } });
      }
    };

    call.on('data', (req: InteractiveRequest) => {
      if (closed) return;
      try {
        handle(req);
      } catch (err) {
        fail(err);
      }
    });
    // The client's half-close: every context finishes, then the call ends.
    call.on('end', () => {
      if (closed) return;
      if (!session) {
        fail(new TtsError('STREAM_PROTOCOL_VIOLATION', 'The call ended before its `start`.'));
        return;
      }
      const started = performance.now();
      void session.endAll().then(() => {
        if (closed) return;
        close();
        ctx.logger.debug('interactive session ended', { request_id: requestId || undefined, ending_ms: Math.round(performance.now() - started) });
        call.end();
      });
    });
    call.on('cancelled', () => {
      if (closed) return;
      close();
      void session?.cancelAll();
    });
  };
}
