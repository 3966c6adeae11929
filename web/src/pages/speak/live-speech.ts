/**
 * Live mode's connection: the platform's speech WebSocket (GET /v1/audio/speech/stream, described
 * in facade/openapi/asyncapi.yaml). The API key never reaches a URL: a call with the key
 * (POST /v1/audio/speech/stream/tokens) mints a short-lived single-use token, and the socket opens
 * with `?token=`. `session.start` goes first (raw PCM with word timings), then text by context,
 * flushes and cancels; each `audio` message announces the binary frame after it, `words` messages
 * place the words in a context's audio, and `context.done` ends a context. This module only
 * translates the protocol; playback and the text box are the caller's.
 */
import { ApiError } from '../../lib/api.js';
import { credentialHeaders, forgetRejected } from '../../lib/credentials.js';
import type { Schema } from '../../lib/schema.js';
import { openAiErrorOf } from './stream-speech.js';

/** What a live session speaks with. */
export interface LiveSettings {
  readonly voice: string;
  readonly speed: number;
}

/** A word of a context's audio, seconds from the start of that context's audio. */
export interface LiveWord {
  readonly word: string;
  readonly start: number;
  readonly end: number;
}

/** How a context ended. */
export type LiveOutcome = 'completed' | 'cancelled' | 'failed';

/** What the session reports. */
export interface LiveHandlers {
  /** A frame of mono 16-bit samples of `contextId`, next in that context's audio. */
  audio(contextId: string, pcm: Int16Array, sampleRate: number): void;
  /** Words of `contextId`'s audio. */
  words(contextId: string, words: readonly LiveWord[]): void;
  /** The context ended: no more of its audio comes. */
  done(contextId: string, outcome: LiveOutcome): void;
  /** An error the server reported (a refused message or a failed context: the session lives on; or the session's end). */
  error(code: string, message: string, contextId: string | null): void;
  /** The socket closed (the close frame's code); not called after `close()`. */
  closed(code: number, reason: string): void;
}

/** An open live session. */
export interface LiveSpeech {
  /** Text for a context (opens it when new); `flush` speaks what it holds now. */
  send(contextId: string, text: string, flush: boolean): void;
  /** Barge-in: the context stops at the server, no more of its audio comes, its `done` follows. */
  cancel(contextId: string): void;
  /** Ends the session at once (closing the socket cancels every context). */
  close(): void;
}

/** A streaming token for this tab's API key. */
async function mintToken(): Promise<string> {
  const res = await fetch('/v1/audio/speech/stream/tokens', { method: 'POST', headers: { accept: 'application/json', ...credentialHeaders('apiKey') } });
  if (res.status === 401) forgetRejected('apiKey');
  if (!res.ok) throw await openAiErrorOf(res);
  return ((await res.json()) as Schema<'SpeechStreamToken'>).token;
}

/** Seconds a quiet session stays open: a person may think a while between sentences. */
const INACTIVITY_SEC = 60;

type ServerMessage =
  | { readonly type: 'session.started'; readonly sample_rate: number }
  | { readonly type: 'audio'; readonly context_id: string; readonly bytes: number }
  | { readonly type: 'words'; readonly context_id: string; readonly words: readonly LiveWord[] }
  | { readonly type: 'context.done'; readonly context_id: string; readonly outcome: LiveOutcome }
  | { readonly type: 'error'; readonly code: string; readonly message: string; readonly context_id: string | null }
  | { readonly type: 'session.done' };

/**
 * Opens a session with this tab's API key; resolves once the server has started it. Throws
 * ApiError when the key is refused (the token mint's answer) or the session is (its error message).
 */
export async function openLiveSpeech(settings: LiveSettings, handlers: LiveHandlers): Promise<LiveSpeech> {
  const token = await mintToken();
  const url = new URL('/v1/audio/speech/stream', location.href);
  url.protocol = location.protocol === 'https:' ? 'wss:' : 'ws:';
  url.searchParams.set('token', token);
  const ws = new WebSocket(url);
  ws.binaryType = 'arraybuffer';
  const send = (message: Readonly<Record<string, unknown>>): void => {
    if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(message));
  };
  ws.addEventListener('open', () => send({ type: 'session.start', model: 'tts-1', voice: settings.voice, speed: settings.speed, response_format: 'pcm', word_timestamps: true, inactivity_timeout: INACTIVITY_SEC }), { once: true });

  let sampleRate = 0;
  let started: (() => void) | undefined;
  let refused: ((err: ApiError) => void) | undefined;
  let closing = false;
  // The binary frame after an `audio` message is that context's; a frame may end mid-sample.
  let announced: string | undefined;
  const odd = new Map<string, number>();
  const samplesOf = (contextId: string, data: ArrayBuffer): Int16Array => {
    const carry = odd.get(contextId);
    const bytes = carry === undefined ? new Uint8Array(data) : new Uint8Array([carry, ...new Uint8Array(data)]);
    const whole = bytes.length & ~1;
    if (whole < bytes.length) odd.set(contextId, bytes[whole] ?? 0);
    else odd.delete(contextId);
    return new Int16Array(bytes.buffer, bytes.byteOffset, whole / 2);
  };
  let lastError: ApiError | undefined;
  ws.addEventListener('message', (e: MessageEvent<ArrayBuffer | string>) => {
    if (typeof e.data !== 'string') {
      if (announced !== undefined) handlers.audio(announced, samplesOf(announced, e.data), sampleRate);
      announced = undefined;
      return;
    }
    const m = JSON.parse(e.data) as ServerMessage;
    switch (m.type) {
      case 'session.started':
        sampleRate = m.sample_rate;
        started?.();
        break;
      case 'audio':
        announced = m.context_id;
        break;
      case 'words':
        handlers.words(m.context_id, m.words);
        break;
      case 'context.done':
        odd.delete(m.context_id);
        handlers.done(m.context_id, m.outcome);
        break;
      case 'error':
        lastError = new ApiError(0, m.code, m.message, undefined);
        if (sampleRate > 0) handlers.error(m.code, m.message, m.context_id);
        break;
      case 'session.done':
        break;
    }
  });
  ws.addEventListener('close', (e) => {
    if (sampleRate === 0) refused?.(lastError ?? new ApiError(0, 'WEBSOCKET_CLOSED', e.reason || 'The live connection was refused.', undefined));
    else if (!closing) handlers.closed(e.code, e.reason);
  });
  await new Promise<void>((resolve, reject) => {
    started = resolve;
    refused = reject;
  });
  return {
    send(contextId, text, flush) {
      if (text !== '') send({ type: 'text', context_id: contextId, text });
      if (flush) send({ type: 'flush', context_id: contextId });
    },
    cancel(contextId) {
      send({ type: 'cancel', context_id: contextId });
    },
    close() {
      closing = true;
      ws.close(1000);
    },
  };
}
