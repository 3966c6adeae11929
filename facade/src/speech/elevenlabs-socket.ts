/**
 * ElevenLabs' text-to-speech WebSockets over a speech session (interactive.ts): `stream-input`, one
 * utterance per socket, and `multi-stream-input`, up to the session's contexts on one socket keyed
 * by `context_id`. A protocol adapter: it translates the client's JSON messages into the session's
 * text, flush, end and cancel, and the session's audio, word timings and final messages into
 * ElevenLabs' answers; what is spoken, for whom and at what cost was settled by the speech use case
 * that opened the session.
 *
 * Client messages (snake_case, as ElevenLabs takes them): `{"text":" ", voice_settings?,
 * generation_config?, xi_api_key?, ...}` opens (the first message of `stream-input`; a context's
 * first in `multi-stream-input`), `{"text":"... "}` adds text, `flush: true` speaks what is held,
 * `{"text":""}` ends the input (`stream-input`; `"flush": true` with it in `multi-stream-input`,
 * where `{"text":""}` alone is a keep-alive), `close_context` cancels a context at once (barge-in),
 * `close_socket` ends every context's input and closes the socket once their audio is sent.
 * Answers (camelCase): `{"audio": base64, "normalizedAlignment", "alignment"}` with character
 * times cumulative over the context, `{"isFinal": true}` once per context after its input ended,
 * `contextId` on each in `multi-stream-input`, and errors `{"message", "error", "code",
 * "platform_code"}` (ElevenLabs' code where it has one, else the catalogue code in lower case).
 *
 * Refusals that end the socket (a message that is not the protocol's, inactivity, a client that
 * does not read) send their error, then close with 1008 (policy); errors about one context or one
 * message (an unknown context, one context too many, text refused, SSML the node rejects) leave the
 * socket and the session open.
 */
import { performance } from 'node:perf_hooks';
import type { RawData, WebSocket } from 'ws';
import { elevenLabsErrorOf, TtsError } from '@tts/common';
import { TextAligner, type CharacterTimes } from './alignment.js';
import type { SpeechSession, SpeechSessionEvent } from './interactive.js';

/** Which of ElevenLabs' two sockets. */
export type ElevenLabsSocketKind = 'stream-input' | 'multi-stream-input';

/** How one socket is run. */
export interface ElevenLabsSocketOptions {
  readonly kind: ElevenLabsSocketKind;
  /** The socket closes (1008, STREAM_INACTIVITY_TIMEOUT) after this long with no client message and no audio sent, ms. */
  readonly inactivityMs: number;
  /**
   * Bytes the socket may hold unsent (a client that does not read): past them it is closed (1008,
   * STREAM_CLIENT_TOO_SLOW) and the session aborted, so a stalled client costs bounded memory.
   * @default 1 MiB
   */
  readonly maxUnsentBytes?: number;
  /** Receives, per context, the time from a flush (or end of input) to the next audio sent, s. */
  readonly onFlushToAudio?: (seconds: number) => void;
}

/** Close codes (RFC 6455 section 7.4.1). */
const CLOSE_NORMAL = 1000;
const CLOSE_POLICY = 1008;
const CLOSE_INTERNAL = 1011;

/**
 * Unsent bytes a socket may hold by default: several seconds of the largest PCM format beyond
 * what the kernel buffers, enough for a client that reads in bursts.
 */
const DEFAULT_MAX_UNSENT_BYTES = 1024 * 1024;

/** A client that does not complete the closing handshake (it does not read) is cut after this, ms. */
const CLOSE_GRACE_MS = 2000;

/** Messages read ahead of the one being handled before the socket stops reading (a client that floods). */
const READ_AHEAD_HIGH = 256;
const READ_AHEAD_LOW = 32;

/** Context ids remembered after their final message, so a late `close_context` for one is not an error. */
const FINISHED_REMEMBERED = 64;

/** The context of `stream-input`, and of `multi-stream-input` messages without `context_id`. */
const DEFAULT_CONTEXT = 'default';

/** Longest `context_id` taken. */
const MAX_CONTEXT_ID = 256;

/** A client message, its fields checked. */
interface ClientMessage {
  readonly text: string | undefined;
  readonly flush: boolean;
  readonly contextId: string | undefined;
  readonly closeContext: boolean;
  readonly closeSocket: boolean;
}

/** Fields whose type is checked (the others ElevenLabs defines are taken and not used: voice_settings, generation_config, ...). */
const BOOLEAN_FIELDS = ['flush', 'close_context', 'close_socket', 'try_trigger_generation'] as const;
const OBJECT_FIELDS = ['voice_settings', 'generation_config'] as const;
const STRING_FIELDS = ['xi_api_key', 'authorization'] as const;

/** Reads a client frame; throws TtsError (REQUEST_JSON_MALFORMED, STREAM_MESSAGE_INVALID) for one that is not a message of the protocol. */
export function parseClientMessage(data: RawData, isBinary: boolean): ClientMessage {
  if (isBinary) throw new TtsError('STREAM_MESSAGE_INVALID', 'Binary frames are not messages of this protocol: send JSON in text frames.');
  const raw = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
  let value: unknown;
  try {
    value = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new TtsError('REQUEST_JSON_MALFORMED', 'The message is not valid JSON.');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new TtsError('STREAM_MESSAGE_INVALID', 'A message is a JSON object.');
  const m = value as Record<string, unknown>;
  const wrong = (field: string, type: string): TtsError => new TtsError('STREAM_MESSAGE_INVALID', `"${field}" must be ${type}.`, { loc: ['message', field] });
  const present = (field: string): boolean => m[field] !== undefined && m[field] !== null;
  if (present('text') && typeof m['text'] !== 'string') throw wrong('text', 'a string');
  if (present('context_id') && (typeof m['context_id'] !== 'string' || m['context_id'].length === 0 || m['context_id'].length > MAX_CONTEXT_ID)) throw wrong('context_id', `a string of 1 to ${MAX_CONTEXT_ID} characters`);
  for (const f of BOOLEAN_FIELDS) if (present(f) && typeof m[f] !== 'boolean') throw wrong(f, 'a boolean');
  for (const f of OBJECT_FIELDS) if (present(f) && (typeof m[f] !== 'object' || Array.isArray(m[f]))) throw wrong(f, 'an object');
  for (const f of STRING_FIELDS) if (present(f) && typeof m[f] !== 'string') throw wrong(f, 'a string');
  return {
    text: present('text') ? (m['text'] as string) : undefined,
    flush: m['flush'] === true,
    contextId: present('context_id') ? (m['context_id'] as string) : undefined,
    closeContext: m['close_context'] === true,
    closeSocket: m['close_socket'] === true,
  };
}

/** ElevenLabs' `alignment` of characters: start and duration of each, ms. */
interface AlignmentJson {
  readonly chars: string[];
  readonly charStartTimesMs: number[];
  readonly charDurationsMs: number[];
}

function alignmentJson(t: CharacterTimes): AlignmentJson | null {
  if (t.characters.length === 0) return null;
  return {
    chars: t.characters,
    charStartTimesMs: t.starts.map((s) => Math.round(s * 1000)),
    charDurationsMs: t.ends.map((e, i) => Math.max(0, Math.round(e * 1000) - Math.round(t.starts[i]! * 1000))),
  };
}

/** ElevenLabs' error message for `error` (its code where it has one; the catalogue code too). */
export function socketErrorOf(error: TtsError, closeCode: number | null): Record<string, unknown> {
  return { message: error.message, error: elevenLabsErrorOf(error.code).code, code: closeCode, platform_code: error.code };
}

/** One context as the socket sees it. */
interface SocketContext {
  readonly id: string;
  readonly aligner: TextAligner;
  /** Text was sent to the session for it (the session knows the context). */
  atSession: boolean;
  /** Its input ended (end of input, close_context, close_socket): only its final message is awaited. */
  ended: boolean;
  /** Cancelled: none of its audio goes out any more. */
  cancelled: boolean;
  /** When a flush (or end of input) not yet followed by audio was asked, ms (performance.now). */
  flushedAt: number | undefined;
}

/** Runs one ElevenLabs socket over its session until the socket closes. */
class ElevenLabsSocket {
  private readonly contexts = new Map<string, SocketContext>();
  private readonly finished: string[] = [];
  /** `stream-input`: the opening message has come. */
  private opened = false;
  /** No more client input is taken (close_socket, end of `stream-input`, a refusal). */
  private inputClosed = false;
  private closed = false;
  /** We closed (or are closing) the socket: nothing more is sent. */
  private closing = false;
  private inactivity: NodeJS.Timeout | undefined;
  private handling: Promise<void> = Promise.resolve();
  private readAhead = 0;
  private readonly multi: boolean;
  private readonly maxUnsentBytes: number;

  constructor(
    private readonly ws: WebSocket,
    private readonly session: SpeechSession,
    private readonly options: ElevenLabsSocketOptions,
  ) {
    this.multi = options.kind === 'multi-stream-input';
    this.maxUnsentBytes = options.maxUnsentBytes ?? DEFAULT_MAX_UNSENT_BYTES;
  }

  async run(): Promise<void> {
    const closed = new Promise<void>((resolve) => {
      this.ws.once('close', () => {
        this.closed = true;
        this.inputClosed = true;
        clearTimeout(this.inactivity);
        // The client went away (or the socket was closed): nothing more is spoken.
        this.session.abort();
        resolve();
      });
    });
    // ws closes the socket itself after an error (1009 for a message too big, 1002 for a broken
    // frame); the listener only keeps the error from being thrown.
    this.ws.on('error', () => undefined);
    this.ws.on('message', (data, isBinary) => this.enqueue(data, isBinary));
    this.touch();
    const pumped = this.pump();
    await closed;
    await pumped;
    await this.handling;
  }

  /** Handles messages one at a time, in order; a client far ahead stops being read until it catches up. */
  private enqueue(data: RawData, isBinary: boolean): void {
    this.touch();
    this.readAhead++;
    if (this.readAhead >= READ_AHEAD_HIGH) this.ws.pause();
    this.handling = this.handling
      .then(() => this.onMessage(data, isBinary))
      .catch((err: unknown) => this.refuse(err))
      .finally(() => {
        this.readAhead--;
        if (this.readAhead <= READ_AHEAD_LOW && this.ws.isPaused) this.ws.resume();
      });
  }

  private async onMessage(data: RawData, isBinary: boolean): Promise<void> {
    if (this.inputClosed) return;
    const m = parseClientMessage(data, isBinary);
    if (m.closeSocket) return this.closeSocket();
    if (!this.multi) return this.onSingle(m);
    const id = m.contextId ?? DEFAULT_CONTEXT;
    if (m.closeContext) return this.closeContext(id);
    let context = this.contexts.get(id);
    if (context === undefined) {
      // Only a keep-alive or an end of input for a context already finished is not a new context.
      if (this.finished.includes(id) && !m.text) return;
      if (this.contexts.size >= this.session.maxContexts) {
        this.sendError(new TtsError('STREAM_CONTEXTS_EXCEEDED', `The socket has ${this.contexts.size} contexts open; it may hold ${this.session.maxContexts}. Close one first (close_context, or end its input and wait for its isFinal).`), id);
        return;
      }
      context = this.open(id);
    }
    const ends = m.text === '' && m.flush;
    await this.input(context, m.text === '' ? undefined : m.text, m.flush && !ends, ends);
  }

  /** `stream-input`: one context, opened by the first message, ended by empty text. */
  private async onSingle(m: ClientMessage): Promise<void> {
    if (!this.opened) {
      if (m.text === undefined || m.text.trim() !== '') {
        throw new TtsError('STREAM_PROTOCOL_VIOLATION', 'The first message opens the stream: {"text": " "} with its settings (voice_settings, generation_config); text comes after it.');
      }
      this.opened = true;
      this.open(DEFAULT_CONTEXT);
      return;
    }
    // After a failed utterance (its error and isFinal sent) the stream goes on with a new one.
    const context = this.contexts.get(DEFAULT_CONTEXT) ?? this.open(DEFAULT_CONTEXT);
    const ends = m.text === '';
    await this.input(context, ends ? undefined : m.text, m.flush, ends);
    if (ends) this.inputClosed = true;
  }

  private open(id: string): SocketContext {
    const context: SocketContext = { id, aligner: new TextAligner(), atSession: false, ended: false, cancelled: false, flushedAt: undefined };
    this.contexts.set(id, context);
    return context;
  }

  /** Text, flush and end of input for a context, in that order. */
  private async input(context: SocketContext, text: string | undefined, flush: boolean, ends: boolean): Promise<void> {
    if (context.ended) {
      if (text !== undefined && text.trim() !== '') this.sendError(new TtsError('STREAM_CONTEXT_CLOSED', `Context "${context.id}" has ended its input; wait for its isFinal or use another context_id.`), context.id);
      return;
    }
    // White space before a context's first words is a keep-alive: the session drops it anyway.
    if (text !== undefined && (context.atSession || text.trim() !== '')) {
      context.aligner.append(text);
      context.atSession = true;
      await this.session.pushText(context.id, text);
    }
    if (flush && context.atSession) {
      context.flushedAt ??= performance.now();
      await this.session.flush(context.id);
    }
    if (ends) {
      context.ended = true;
      if (!context.atSession) return this.final(context);
      context.flushedAt ??= performance.now();
      await this.session.end(context.id);
    }
  }

  /**
   * Barge-in: a context whose input is still open stops now (no more of its audio), its isFinal
   * follows. One whose input has ended finishes what was flushed first, as ElevenLabs' does:
   * clients (the LiveKit plugin) send the end of input and close_context back to back at the end
   * of every utterance and wait for its isFinal.
   */
  private async closeContext(id: string): Promise<void> {
    const context = this.contexts.get(id);
    if (context === undefined) {
      if (!this.finished.includes(id)) this.sendError(new TtsError('STREAM_CONTEXT_UNKNOWN', `The socket has no context "${id}" to close.`), id);
      return;
    }
    if (context.cancelled || context.ended) return;
    context.cancelled = true;
    context.ended = true;
    if (!context.atSession) return this.final(context);
    await this.session.cancel(context.id);
  }

  /** Every context's input ends; the socket closes once their audio and final messages are sent. */
  private closeSocket(): void {
    this.inputClosed = true;
    for (const c of this.contexts.values()) {
      c.ended = true;
      if (!c.atSession) this.final(c);
    }
    this.session.close();
  }

  /** Sends the session's answers until it ends. */
  private async pump(): Promise<void> {
    try {
      for await (const event of this.session.events()) {
        if (this.closed) continue;
        this.answer(event);
      }
      this.close(CLOSE_NORMAL, 'done');
    } catch (err) {
      if (this.closed || this.closing) return;
      const error = err instanceof TtsError ? err : new TtsError('INTERNAL_ERROR', undefined, { cause: err });
      this.sendError(error, undefined, CLOSE_INTERNAL);
      this.close(CLOSE_INTERNAL, error.code);
    }
  }

  private answer(event: SpeechSessionEvent): void {
    const context = this.contexts.get(event.contextId);
    switch (event.kind) {
      case 'audio': {
        if (context === undefined || context.cancelled) return;
        if (context.flushedAt !== undefined && event.audio.length > 0) {
          this.options.onFlushToAudio?.((performance.now() - context.flushedAt) / 1000);
          context.flushedAt = undefined;
        }
        const { text, normalized } = context.aligner.take(event.words);
        this.send({ audio: event.audio.toString('base64'), ...(this.multi ? {} : { isFinal: false }), normalizedAlignment: alignmentJson(normalized), alignment: alignmentJson(text) }, context.id);
        this.touch();
        return;
      }
      case 'error':
        this.sendError(event.error, event.contextId === '' ? undefined : event.contextId);
        return;
      case 'final':
        if (context === undefined) return;
        if (event.outcome === 'completed') {
          const rest = alignmentJson(context.aligner.rest(event.audioSeconds));
          if (rest !== null) this.send({ audio: '', ...(this.multi ? {} : { isFinal: false }), normalizedAlignment: null, alignment: rest }, context.id);
        }
        this.final(context);
        this.touch();
        return;
    }
  }

  /** The context's isFinal (once): it is forgotten, its id free again. */
  private final(context: SocketContext): void {
    if (this.contexts.get(context.id) !== context) return;
    this.contexts.delete(context.id);
    this.finished.push(context.id);
    if (this.finished.length > FINISHED_REMEMBERED) this.finished.shift();
    this.send({ isFinal: true }, context.id);
    // stream-input speaks one utterance: the socket closes after it, as ElevenLabs' does.
    if (!this.multi && context.ended) {
      this.inputClosed = true;
      this.session.close();
    }
  }

  /** Sends a message (with `contextId` on multi-stream-input); refuses a client that does not read. */
  private send(message: Record<string, unknown>, contextId: string | undefined): void {
    if (this.closed || this.closing || this.ws.readyState !== this.ws.OPEN) return;
    this.ws.send(JSON.stringify(this.multi && contextId !== undefined ? { ...message, contextId } : message));
    if (this.ws.bufferedAmount > this.maxUnsentBytes) {
      this.refuse(new TtsError('STREAM_CLIENT_TOO_SLOW', `The client has not read ${this.ws.bufferedAmount} bytes of answers; the socket is closed.`));
    }
  }

  private sendError(error: TtsError, contextId: string | undefined, closeCode: number | null = null): void {
    this.send(socketErrorOf(error, closeCode), contextId);
  }

  /** Ends the socket for a client that broke its rules: its error, then a policy close. */
  private refuse(err: unknown): void {
    if (this.closed || this.closing) return;
    const error = err instanceof TtsError ? err : new TtsError('INTERNAL_ERROR', undefined, { cause: err });
    const code = error.code === 'INTERNAL_ERROR' ? CLOSE_INTERNAL : CLOSE_POLICY;
    this.inputClosed = true;
    this.session.abort();
    if (error.code !== 'STREAM_CLIENT_TOO_SLOW') this.sendError(error, undefined, code);
    this.close(code, error.code);
  }

  /** Closes the socket; one whose client does not answer the close is cut after a grace. */
  private close(code: number, reason: string): void {
    if (this.closed || this.closing) return;
    this.closing = true;
    clearTimeout(this.inactivity);
    this.ws.close(code, reason);
    setTimeout(() => this.ws.terminate(), CLOSE_GRACE_MS).unref();
  }

  /** Restarts the inactivity clock (a client message, audio sent). */
  private touch(): void {
    if (this.closed) return;
    clearTimeout(this.inactivity);
    this.inactivity = setTimeout(() => {
      const seconds = Math.round(this.options.inactivityMs / 1000);
      this.refuse(new TtsError('STREAM_INACTIVITY_TIMEOUT', `No message within the inactivity timeout of ${seconds} s; send text, or the keep-alive {"text": " "}, or ask a longer inactivity_timeout (up to 180).`));
    }, this.options.inactivityMs);
    this.inactivity.unref();
  }
}

/**
 * Runs an ElevenLabs socket over `session` until the socket closes (the client's close, or ours
 * after the session ended or a refusal); the session is aborted when the socket closes early.
 */
export function runElevenLabsSocket(ws: WebSocket, session: SpeechSession, options: ElevenLabsSocketOptions): Promise<void> {
  return new ElevenLabsSocket(ws, session, options).run();
}
