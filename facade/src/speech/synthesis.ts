/**
 * The facade's only way to synthesis: pick the node locally from the routing view (NodeRouter,
 * lookaside load balancing by load; no scheduler call per request), then call that node's
 * Synthesizer over gRPC. A retryable failure before any audio reached the client is retried once on
 * another node, and asks the router to refresh its view. Field paths in node errors are translated
 * to the caller's body field names.
 *
 * Admission: a request is refused at once (TTS_OVERLOADED, 503 with Retry-After) when no node's
 * estimated queue wait plus the request's own estimated synthesis fits its budget, a share of its
 * deadline; so under overload the requests that can finish are served rather than every request
 * timing out.
 */
import { Metadata, type ClientReadableStream } from '@grpc/grpc-js';
import type { AudioChunk, InteractiveStart, SpeechSpec, StreamInfo, SynthesizeRequest, SynthesizeResponse } from '@tts/proto/synthesis';
import { TtsError, callUnary, deadlineIn, openInteractive, synthesizerClient, fromServiceError } from '@tts/common';
import { RETRY_ON_ANOTHER_NODE, SESSION_ROUTE_CHARACTERS } from '@tts/common/routing';
import type { ProvenanceMarks } from '../compliance/provenance.js';
import type { NodeRouter, RoutedNode } from '../cluster/node-router.js';
import type { FieldNames } from './speech-request.js';
import { SpeechSession } from './interactive.js';


/** A streaming synthesis whose first message (stream info) has arrived. */
export interface SynthesisStream {
  readonly info: StreamInfo;
  readonly nodeId: string;
  /** Audio chunks after the info message; the last carries metrics. */
  readonly chunks: AsyncIterable<AudioChunk>;
}


/** Options of the gateway. */
export interface SynthesisGatewayOptions {
  /** Chooses the node of each request. */
  readonly router: NodeRouter;
  /** Deadline of one synthesis call, ms. */
  readonly timeoutMs: number;
  /** Extra attempts on another node after a retryable failure. */
  readonly retries: number;
  /**
   * Share of `timeoutMs` a request's estimated wait plus synthesis may fill before it is refused
   * with TTS_OVERLOADED; undefined = no admission (every request is tried until its deadline).
   */
  readonly admissionShare?: number | undefined;
  /** The provenance payload of a request's audio (every request the facade sends is marked with its own). */
  readonly marks: ProvenanceMarks;
}

/** Routes synthesis requests to inference nodes. */
export class SynthesisGateway {
  constructor(private readonly options: SynthesisGatewayOptions) {}

  /** The request with the provenance payload of its request id. */
  private marked<R extends { readonly requestId: string; readonly speech?: SpeechSpec | undefined }>(req: R): R {
    return req.speech ? { ...req, speech: { ...req.speech, watermarkPayload: this.options.marks.payloadOf(req.requestId) } } : req;
  }

  /** Whole-file synthesis. */
  async synthesize(request: SynthesizeRequest, fields: FieldNames, signal: AbortSignal): Promise<{ response: SynthesizeResponse; nodeId: string }> {
    const req = this.marked(request);
    return this.withRetries(req, fields, async (node) => {
      const client = synthesizerClient(node.address);
      const response = await callUnary(client.synthesize.bind(client), req, { timeoutMs: this.options.timeoutMs, signal });
      return { response, nodeId: node.nodeId };
    });
  }

  /** Streaming synthesis; resolves once the node has validated the request and sent its stream info. */
  async stream(request: SynthesizeRequest, fields: FieldNames, signal: AbortSignal): Promise<SynthesisStream> {
    const req = this.marked(request);
    return this.withRetries(req, fields, async (node) => {
      const client = synthesizerClient(node.address);
      const call: ClientReadableStream<AudioChunk> = client.synthesizeStream(req, new Metadata(), { deadline: deadlineIn(this.options.timeoutMs) });
      const onAbort = (): void => call.cancel();
      if (signal.aborted) call.cancel();
      else signal.addEventListener('abort', onAbort, { once: true });
      const iterator = call[Symbol.asyncIterator]() as AsyncIterator<AudioChunk>;
      let first: IteratorResult<AudioChunk>;
      try {
        first = await iterator.next();
      } catch (err) {
        signal.removeEventListener('abort', onAbort);
        throw fromServiceError(err);
      }
      if (first.done || !first.value.info) {
        signal.removeEventListener('abort', onAbort);
        throw new TtsError('TTS_ENGINE_FAILED', 'The node ended the stream without audio.');
      }
      const chunks: AsyncIterable<AudioChunk> = {
        [Symbol.asyncIterator]: () => ({
          next: async () => {
            try {
              const n = await iterator.next();
              if (n.done) signal.removeEventListener('abort', onAbort);
              return n;
            } catch (err) {
              signal.removeEventListener('abort', onAbort);
              throw translate(fromServiceError(err), fields);
            }
          },
          return: async () => {
            call.cancel();
            signal.removeEventListener('abort', onAbort);
            return { done: true, value: undefined };
          },
        }),
      };
      return { info: first.value.info, nodeId: node.nodeId, chunks };
    });
  }

  /**
   * Opens an interactive session (text in pieces, audio out) on a node chosen by load with a free
   * session place; it stays on that node for its life. Resolves once the node accepted the settings
   * (`start.speech`, no text); another node is tried when one refuses before that.
   */
  async interactive(start: InteractiveStart, fields: FieldNames, signal: AbortSignal): Promise<SpeechSession> {
    const req = this.marked(start);
    return this.withRetries(req, fields, async (node) => new SpeechSession(await openInteractive(node.address, req, { signal })), { characters: SESSION_ROUTE_CHARACTERS, session: true });
  }

  /**
   * Runs `attempt` on the node the router picks for `req`, and on another after a retryable
   * failure. `route`: what routing counts (default: the request's text; a session's first piece).
   */
  private async withRetries<T>(
    req: Pick<SynthesizeRequest, 'tenantId' | 'tenantWeight' | 'speech'>,
    fields: FieldNames,
    attempt: (node: RoutedNode) => Promise<T>,
    route: { readonly characters?: number; readonly session?: boolean } = {},
  ): Promise<T> {
    const exclude: string[] = [];
    let lastError: TtsError | undefined;
    const { admissionShare, timeoutMs } = this.options;
    const budgetEndMs = admissionShare === undefined ? undefined : performance.now() + admissionShare * timeoutMs;
    for (let i = 0; ; i++) {
      let node: RoutedNode;
      try {
        node = await this.options.router.pick({
          voice: req.speech?.voice ?? '',
          engine: req.speech?.engine ?? '',
          characters: route.characters ?? req.speech?.text.length ?? 0,
          session: route.session,
          // Its wait is its fair share of the queue (the nodes serve tenants by weighted fair queuing).
          tenant: req.tenantId,
          tenantWeight: req.tenantWeight,
          // A retry has what is left of the budget.
          budgetSeconds: budgetEndMs === undefined ? undefined : Math.max(0, budgetEndMs - performance.now()) / 1000,
        }, exclude);
      } catch (err) {
        // No other node to retry on: the client is better served by the original failure.
        throw lastError ?? translate(fromServiceError(err), fields);
      }
      try {
        return await attempt(node);
      } catch (err) {
        const e = translate(fromServiceError(err), fields);
        // The node is gone, draining, overloaded or failing: the view may be out of date.
        if (RETRY_ON_ANOTHER_NODE.has(e.code)) this.options.router.invalidate();
        if (i >= this.options.retries || !RETRY_ON_ANOTHER_NODE.has(e.code)) throw e;
        lastError = e;
        exclude.push(node.nodeId);
      }
    }
  }
}

/** Rewrites a node error's field path (["text"]) to the caller's body path (["body", "input"]). */
function translate(err: TtsError, fields: FieldNames): TtsError {
  // A node names a SpeechSpec field, as `speech.<field>` or `<field>`.
  const loc = err.loc[0] === 'speech' ? err.loc.slice(1) : err.loc;
  const head = loc[0];
  if (typeof head !== 'string' || head === 'body' || head === 'query') return err;
  const mapped = fields[head as keyof FieldNames] ?? head;
  return new TtsError(err.code, err.message, {
    loc: ['body', mapped, ...loc.slice(1)],
    ...(err.retryAfterSec === undefined ? {} : { retryAfterSec: err.retryAfterSec }),
  });
}
