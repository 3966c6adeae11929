/**
 * The worker-thread side of a {@link WorkerPool}: initializes the thread's engine state, then
 * answers requests one at a time. Import it only from a worker entry module.
 */
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { TtsError } from '@tts/common/errors';
import type { ControlMessage, WorkerMessage } from './worker-protocol.js';

/** What a request handler returns: the result and the buffers to transfer (not copy) with it. */
export interface HandlerResult<Res> {
  readonly result: Res;
  readonly transfer?: readonly ArrayBuffer[];
}

/** Answers one request; a thrown `TtsError` keeps its code, any other error becomes `TTS_ENGINE_FAILED`. */
export type RequestHandler<Req, Res> = (request: Req) => HandlerResult<Res> | Promise<HandlerResult<Res>>;

/**
 * Runs `init` with the pool's `workerData`, reports readiness (or the init error) and serves
 * requests with the returned handler. Requests are handled strictly one after another; an `exit`
 * message ends the thread once the requests before it are done.
 */
export function serveWorker<Req, Res>(init: (data: unknown) => RequestHandler<Req, Res> | Promise<RequestHandler<Req, Res>>): void {
  const port = parentPort;
  if (isMainThread || !port) throw new Error('serveWorker must run in a worker thread');
  const post = (message: WorkerMessage<Res>, transfer: readonly ArrayBuffer[] = []): void => port.postMessage(message, [...transfer]);
  let chain: Promise<void> = Promise.resolve();

  void (async () => {
    let handler: RequestHandler<Req, Res>;
    try {
      handler = await init(workerData);
    } catch (err) {
      post({ type: 'init-error', message: err instanceof Error ? err.message : String(err) });
      return;
    }
    port.on('message', (msg: ControlMessage<Req>) => {
      chain = chain.then(async () => {
        if (msg.type === 'exit') process.exit(0);
        try {
          const { result, transfer } = await handler(msg.request);
          post({ type: 'result', id: msg.id, result }, transfer);
        } catch (err) {
          post({
            type: 'error',
            id: msg.id,
            code: err instanceof TtsError ? err.code : null,
            message: err instanceof Error ? err.message : String(err),
          });
        }
      });
    });
    post({ type: 'ready' });
  })();
}
