/**
 * SynthesizeInteractive for callers without a view of the nodes (internal services with an API
 * key, docs/internal-callers.md): the caller is authenticated like every other call, its session
 * is routed once by load to a node with a free session place (another node is tried when the
 * first refuses before the session opened) and stays there; the messages are relayed both ways
 * with back-pressure. An API key's session is its own tenant; a platform caller's is as it says.
 * Each context's final message is logged with the characters it spoke: the record of what an
 * internal caller's session used (the facade meters the sessions it opens itself).
 */
import type { ServerDuplexStream } from '@grpc/grpc-js';
import type { InteractiveRequest, InteractiveResponse, InteractiveStart } from '@tts/proto/synthesis';
import { openInteractive, toServiceError, TtsError, type InteractiveCall } from '@tts/common';
import { RETRY_ON_ANOTHER_NODE, SESSION_ROUTE_CHARACTERS } from '@tts/common/routing';
import { routeOrError } from '../domain/routing.js';
import type { SchedulerContext } from '../domain/scheduler-context.js';
import { callerOf, type Caller } from './callers.js';

/** Nodes tried for one session before its refusal is the caller's. */
const ATTEMPTS = 2;

/** The session's settings with the tenant the caller may claim. */
function startOf(start: InteractiveStart, caller: Caller): InteractiveStart {
  return caller.kind === 'platform' ? start : { ...start, tenantId: caller.keyId, tenantWeight: 0 };
}

/** Opens the session on a node chosen by load, trying another when one refuses. */
async function openRouted(ctx: SchedulerContext, start: InteractiveStart, signal: AbortSignal): Promise<{ call: InteractiveCall; nodeId: string }> {
  const exclude: string[] = [];
  for (let attempt = 1; ; attempt++) {
    const decision = routeOrError(ctx.membership.all(), ctx.membership.ready(), ctx.policy, {
      voice: start.speech?.voice ?? '',
      engine: start.speech?.engine ?? '',
      characters: SESSION_ROUTE_CHARACTERS,
      excludeNodeIds: exclude,
      tenant: start.tenantId,
      tenantWeight: start.tenantWeight,
      session: true,
    });
    try {
      return { call: await openInteractive(decision.entry.status.address, start, { signal }), nodeId: decision.entry.status.nodeId };
    } catch (err) {
      if (!(err instanceof TtsError) || !RETRY_ON_ANOTHER_NODE.has(err.code) || attempt >= ATTEMPTS) throw err;
      exclude.push(decision.entry.status.nodeId);
    }
  }
}

/** SynthesizeInteractive: authenticates, routes once, relays. */
export function synthesizeInteractive(ctx: SchedulerContext) {
  return (call: ServerDuplexStream<InteractiveRequest, InteractiveResponse>): void => {
    const controller = new AbortController();
    let answered = false;
    call.on('cancelled', () => {
      if (!answered) controller.abort();
    });
    /** Writes to the caller, waiting while it does not read (or until it is gone). */
    const write = (response: InteractiveResponse): Promise<void> => {
      if (controller.signal.aborted || call.write(response)) return Promise.resolve();
      return new Promise((resolve) => {
        const go = (): void => {
          call.off('drain', go);
          controller.signal.removeEventListener('abort', go);
          resolve();
        };
        call.on('drain', go);
        controller.signal.addEventListener('abort', go, { once: true });
      });
    };
    let node: InteractiveCall | undefined;
    void (async () => {
      const caller = await callerOf(ctx, call.metadata);
      // Not destroyed when the caller's input ends (the default): its answer still flows after a half-close.
      const inbound = call.iterator({ destroyOnReturn: false }) as AsyncIterator<InteractiveRequest>;
      const first = await inbound.next();
      if (first.done || first.value.message?.$case !== 'start') throw new TtsError('STREAM_PROTOCOL_VIOLATION', 'The first message of a session must be `start`.');
      const start = startOf(first.value.message.value, caller);
      const opened = await openRouted(ctx, start, controller.signal);
      node = opened.call;
      const upstream = node;
      ctx.logger.info('interactive session opened', { request_id: start.requestId || undefined, node_id: opened.nodeId, tenant: start.tenantId || undefined });
      await write({ message: { $case: 'started', value: upstream.started } });
      // The caller's messages to the node; its half-close ends the node's input.
      void (async () => {
        try {
          for (let n = await inbound.next(); !n.done; n = await inbound.next()) await upstream.write(n.value);
          upstream.end();
        } catch {
          upstream.cancel();
        }
      })();
      for await (const response of upstream.responses) {
        const m = response.message;
        if (m?.$case === 'final') {
          ctx.logger.info('interactive context ended', {
            request_id: start.requestId || undefined,
            tenant: start.tenantId || undefined,
            context_id: m.value.contextId,
            outcome: m.value.outcome,
            characters_spoken: m.value.charactersSpoken,
            characters_in_synthesis: m.value.charactersInSynthesis,
          });
        }
        await write(response);
      }
      answered = true;
      call.end();
    })().catch((err: unknown) => {
      node?.cancel();
      if (controller.signal.aborted) return;
      answered = true;
      const level = err instanceof TtsError && err.spec.http < 500 ? 'info' : 'warn';
      ctx.logger[level]('interactive session failed', { err });
      call.emit('error', toServiceError(err));
    });
  };
}
