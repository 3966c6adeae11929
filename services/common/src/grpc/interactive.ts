/**
 * The client side of a node's interactive session (Synthesizer.SynthesizeInteractive): opens the
 * call, sends the settings and waits for the node's `started`, then gives the call as a writer of
 * messages (with the transport's back-pressure) and an iterator of the node's messages. What the
 * facade's gateway and the scheduler's relay both need; each routes and retries on its own.
 */
import { Metadata, type ClientDuplexStream } from '@grpc/grpc-js';
import type { InteractiveRequest, InteractiveResponse, InteractiveStart, InteractiveStarted } from '@tts/proto/synthesis';
import { TtsError } from '../errors/tts-error.js';
import { synthesizerClient } from './clients.js';
import { fromServiceError } from './errors.js';

/** An open interactive session on a node. */
export interface InteractiveCall {
  /** The node's answer to the settings. */
  readonly started: InteractiveStarted;
  /** Sends a message; resolves once the transport takes more (back-pressure). */
  write(request: InteractiveRequest): Promise<void>;
  /** No more messages: every context's input ends; the node ends the call after their final messages. */
  end(): void;
  /** Cancels the call: every context is cancelled. */
  cancel(): void;
  /** The node's messages after `started`; throws the call's error as a TtsError. Single consumer. */
  readonly responses: AsyncIterable<InteractiveResponse>;
}

/**
 * Opens a session on the node at `address` with `start`; resolves once the node answered
 * `started`, rejects with the node's refusal (a TtsError with its catalogue code). `signal`
 * cancels the call, before or after it opened.
 */
export async function openInteractive(address: string, start: InteractiveStart, options: { readonly signal?: AbortSignal; readonly metadata?: Metadata } = {}): Promise<InteractiveCall> {
  const client = synthesizerClient(address);
  const call: ClientDuplexStream<InteractiveRequest, InteractiveResponse> = client.synthesizeInteractive(options.metadata ?? new Metadata());
  const { signal } = options;
  const onAbort = (): void => call.cancel();
  if (signal?.aborted) call.cancel();
  else signal?.addEventListener('abort', onAbort, { once: true });
  const detach = (): void => signal?.removeEventListener('abort', onAbort);
  // The call is a readable stream of the node's messages; errors become the catalogue's.
  const iterator = call[Symbol.asyncIterator]() as AsyncIterator<InteractiveResponse>;
  const next = async (): Promise<IteratorResult<InteractiveResponse>> => {
    try {
      const n = await iterator.next();
      if (n.done) detach();
      return n;
    } catch (err) {
      detach();
      throw fromServiceError(err);
    }
  };
  call.write({ message: { $case: 'start', value: start } });
  const first = await next();
  if (first.done || first.value.message?.$case !== 'started') {
    call.cancel();
    detach();
    throw new TtsError('TTS_ENGINE_FAILED', 'The node ended the session without opening it.');
  }
  const cancel = (): void => {
    call.cancel();
    detach();
  };
  return {
    started: first.value.message.value,
    write: (request) => {
      if (call.write(request)) return Promise.resolve();
      // Until the node reads on, or the call is over.
      return new Promise((resolve) => {
        const go = (): void => {
          call.off('drain', go);
          call.off('status', go);
          resolve();
        };
        call.on('drain', go);
        call.on('status', go);
      });
    },
    end: () => call.end(),
    cancel,
    responses: {
      [Symbol.asyncIterator]: () => ({
        next,
        return: async (): Promise<IteratorResult<InteractiveResponse>> => {
          cancel();
          return { done: true, value: undefined };
        },
      }),
    },
  };
}
