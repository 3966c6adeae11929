/**
 * What ElevenLabs' two WebSocket operations share: the session is opened through the speech use
 * case before the handshake (so a refusal is an HTTP answer and nothing is synthesized), then the
 * socket is accepted and run over it (elevenlabs-socket.ts) until it closes.
 */
import type { WebSocket } from 'ws';
import { TtsError } from '@tts/common';
import { instruments } from '@tts/common/telemetry';
import { callerOf } from '../../middleware/access.js';
import { acceptWebSocket, requireUpgrade } from '../../realtime/upgrade.js';
import type { HandlerContext, QueryOf, PathOf } from '../../handler-context.js';
import type { FacadeDeps } from '../../handler-context.js';
import { runElevenLabsSocket, socketErrorOf, type ElevenLabsSocketKind } from '../elevenlabs-socket.js';
import { elevenLabsSettingsOf } from '../speech-request.js';

/** A request of either socket operation, with the services it uses. */
type SocketRequest = Pick<HandlerContext<'elevenLabsStreamInput', Pick<FacadeDeps, 'speech' | 'sessionLimits'>>, 'req' | 'res' | 'deps' | 'requestId' | 'signal'> & {
  readonly query: QueryOf<'elevenLabsStreamInput'> | QueryOf<'elevenLabsMultiStreamInput'>;
  readonly params: PathOf<'elevenLabsStreamInput'> | PathOf<'elevenLabsMultiStreamInput'>;
};

/** Serves one ElevenLabs socket of `kind` for the request's caller. */
export async function serveElevenLabsSocket(kind: ElevenLabsSocketKind, { req, res, deps, requestId, signal, query, params }: SocketRequest): Promise<void> {
  requireUpgrade(req, res);
  const settings = elevenLabsSettingsOf(
    params.voice_id,
    { text: '', model_id: query.model_id, language_code: query.language_code, apply_text_normalization: query.apply_text_normalization },
    { output_format: query.output_format, optimize_streaming_latency: query.optimize_streaming_latency },
    true,
  );
  // The caller's place among its tier's sessions (429 SESSION_LIMIT_EXCEEDED before the handshake).
  const caller = callerOf(res);
  const release = deps.sessionLimits.acquire(caller);
  const inactivityMs = deps.sessionLimits.inactivityMs(query.inactivity_timeout);
  let ws: WebSocket | undefined;
  try {
    await deps.speech.speak(caller, { requestId, endpoint: `GET /v1/text-to-speech/{voice_id}/${kind}`, text: '', settings }, {
      kind: 'session',
      signal,
      deliver: async (session) => {
        ws = await acceptWebSocket(req, res);
        const attributes = { 'tts.engine': session.info.engine, 'tts.protocol': `elevenlabs-${kind}` };
        await runElevenLabsSocket(ws, session, { kind, inactivityMs, onFlushToAudio: (s) => instruments().sessionFlushToAudio.record(s, attributes) });
      },
    });
  } catch (err) {
    // Before the handshake the error middleware answers in HTTP; after it, the socket is all there is.
    if (ws === undefined) throw err;
    const error = err instanceof TtsError ? err : new TtsError('INTERNAL_ERROR', undefined, { cause: err });
    if (ws.readyState === ws.OPEN) {
      ws.send(JSON.stringify(socketErrorOf(error, 1011)));
      ws.close(1011, error.code);
    }
  } finally {
    release();
  }
}
