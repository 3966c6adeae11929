/** A gRPC call's cancellation by its client, for the work the call started (every RPC that runs work). */
/** The client's cancellation of a call, as a signal for the work the call started. */
export interface CallCancellation {
  /** Aborted when the client cancels the call before it is answered. */
  readonly signal: AbortSignal;
  /** Notes that the answer (or the error) is being sent: the call's closing no longer stops the work. */
  answered(): void;
}

/**
 * The cancellation of `call`. grpc-js reports 'cancelled' when a call closes, also after a normal
 * answer: only a cancellation before the answer stops the work.
 */
export function callCancellation(call: { on(event: 'cancelled', listener: () => void): unknown }): CallCancellation {
  const controller = new AbortController();
  let answered = false;
  call.on('cancelled', () => {
    if (!answered) controller.abort();
  });
  return {
    signal: controller.signal,
    answered: () => {
      answered = true;
    },
  };
}
