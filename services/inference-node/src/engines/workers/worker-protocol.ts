/** Messages exchanged between a {@link WorkerPool} and its worker threads. */
import type { ErrorCode } from '@tts/common/errors';

/**
 * Main thread -> worker. `exit` asks the worker to end itself once its current request is done
 * (terminating a thread while it is inside a native call aborts the whole process).
 */
export type ControlMessage<Req> =
  | { readonly type: 'request'; readonly id: number; readonly request: Req }
  | { readonly type: 'exit' };

/** Worker -> main thread. */
export type WorkerMessage<Res> =
  | { readonly type: 'ready' }
  | { readonly type: 'init-error'; readonly message: string }
  | { readonly type: 'result'; readonly id: number; readonly result: Res }
  | { readonly type: 'error'; readonly id: number; readonly code: ErrorCode | null; readonly message: string };
