/**
 * The speech WebSocket's protocol adapter (GET /v1/audio/speech/stream; messages in
 * `openapi/asyncapi.yaml`): it translates the socket's messages into a speech session of the use
 * case (speech/speak.ts, output `session`) and the session's events into messages and audio
 * frames. It holds no speech policy: settings, voice, metering and routing are the use case's.
 *
 * Order: the client's messages are handled one at a time, in arrival order (those that arrive while
 * the session is being opened wait for it); when more than a few wait, the socket stops being read,
 * so a client that floods gets TCP's backpressure rather than server memory. Audio goes the other
 * way under a cap of unsent bytes (SEND_HIGH_WATER_BYTES): past it the adapter stops taking the
 * session's events until the client has read what is queued, so the node's call (and its engine
 * work) waits too. The inactivity timer runs from the last message of the client or the last event
 * sent to it; when it fires while the adapter waits for the client to read, the client is too slow.
 */
import type { WebSocket } from 'ws';
import { TtsError, type Logger } from '@tts/common';
import type { Caller } from '../middleware/access.js';
import type { SpeechSession, SpeechSessionEvent } from '../speech/interactive.js';
import type { Speech } from '../speech/speak.js';
import type { SessionLimits } from './session-limits.js';
import { openAiSettingsOf, type SpeechSettings } from '../speech/speech-request.js';
import { closeCodeOf, DEFAULT_CONTEXT, errorMessageOf, type ClientMessage, type ClientMessageReader, type ServerMessage, type SessionStartMessage } from './speech-stream-protocol.js';

/** How usage and the consent audit name the operation. */
const ENDPOINT = 'GET /v1/audio/speech/stream';

/** Unsent bytes one socket may hold before the session's events wait for the client to read. */
export const SEND_HIGH_WATER_BYTES = 1024 * 1024;
/** Client messages waiting to be handled past which the socket is no longer read. */
const INBOX_PAUSE_AT = 32;
/** How long a closing handshake may take before a socket that does not read is cut. */
const CLOSE_GRACE_MS = 2000;
/** How long the node has to send the final messages of contexts cancelled when the socket closed. */
const WIND_DOWN_MS = 1000;


/** What one socket's session needs. */
export interface SpeechStreamOptions {
  readonly ws: WebSocket;
  /** Who opened the socket (access control ran before the handshake). */
  readonly caller: Caller;
  readonly requestId: string;
  readonly speech: Pick<Speech, 'speak'>;
  readonly reader: ClientMessageReader;
  readonly logger: Logger;
  /** The largest message the client may send (TTS_WS_MAX_MESSAGE_BYTES), reported in `session.started`. */
  readonly maxMessageBytes: number;
  /** The inactivity time-out: the configured default, or what `session.start` asks within its bounds. */
  readonly limits: Pick<SessionLimits, 'inactivityMs'>;
}

type Inbound = ClientMessage | TtsError;

/** Serves one socket until it closes. Never throws: every failure is a message and a close frame. */
export async function serveSpeechStream(options: SpeechStreamOptions): Promise<void> {
  await new SpeechStream(options).run();
}

class SpeechStream {
  private phase: 'waiting' | 'starting' | 'open' | 'closing' | 'ended' = 'waiting';
  private readonly inbox: Inbound[] = [];
  private handling = false;
  private paused = false;
  private session: SpeechSession | undefined;
  private inactivitySec: number;
  private timer: NodeJS.Timeout;
  /** Resolves the wait for the client to read queued audio (backpressure), when one is waiting. */
  private readable: (() => void) | undefined;
  private readonly closed: Promise<void>;
  private settings: SessionStartMessage | undefined;
  /** Contexts opened by text and not yet final (cancelled when the socket closes, so that metering counts them). */
  private readonly contexts = new Set<string>();
  /** Aborts the session's opening when the socket closes before it is open. */
  private readonly opening = new AbortController();

  constructor(private readonly o: SpeechStreamOptions) {
    const { ws } = o;
    this.inactivitySec = o.limits.inactivityMs() / 1000;
    this.timer = setTimeout(() => this.idle(), this.inactivitySec * 1000);
    this.closed = new Promise((resolve) => ws.once('close', () => {
      if (this.phase === 'starting') this.opening.abort();
      this.phase = 'ended';
      clearTimeout(this.timer);
      this.readable?.();
      resolve();
    }));
    // Protocol errors (a message over the size cap, invalid UTF-8): ws closes the socket itself (1009, 1007).
    ws.on('error', (err) => o.logger.debug('speech socket: protocol error', { request_id: o.requestId, err: err.message }));
    ws.on('message', (data, isBinary) => {
      if (this.phase === 'ended') return;
      this.touch();
      let message: Inbound;
      try {
        message = o.reader.read(data, isBinary);
      } catch (err) {
        message = err instanceof TtsError ? err : new TtsError('STREAM_MESSAGE_INVALID');
      }
      this.inbox.push(message);
      if (this.inbox.length >= INBOX_PAUSE_AT && !this.paused) {
        this.paused = true;
        ws.pause();
      }
      void this.handleInbox();
    });
  }

  async run(): Promise<void> {
    await this.closed;
  }

  /** Handles waiting messages in order, one at a time; stops while the session is being opened. */
  private async handleInbox(): Promise<void> {
    if (this.handling) return;
    this.handling = true;
    try {
      while (this.inbox.length > 0 && this.phase !== 'starting' && this.phase !== 'ended') {
        const message = this.inbox.shift()!;
        if (this.paused && this.inbox.length < INBOX_PAUSE_AT / 2) {
          this.paused = false;
          this.o.ws.resume();
        }
        await this.handle(message);
      }
    } finally {
      this.handling = false;
    }
  }

  private async handle(message: Inbound): Promise<void> {
    if (message instanceof TtsError) {
      this.send(errorMessageOf(message, null));
      return;
    }
    if (message.type === 'session.start') {
      if (this.phase !== 'waiting') this.send(errorMessageOf(new TtsError('STREAM_PROTOCOL_VIOLATION', 'The session has its settings already: session.start comes once, first.'), null));
      else this.start(message);
      return;
    }
    const session = this.session;
    if (message.type === 'close' && message.context_id === undefined && this.phase === 'waiting') {
      this.closeSocket(1000, 'closed before session.start');
      return;
    }
    if (session === undefined || this.phase !== 'open') {
      const why = this.phase === 'waiting' ? 'Send session.start first: the session has no settings yet.' : 'The session is closing: it takes no more messages.';
      this.send(errorMessageOf(new TtsError('STREAM_PROTOCOL_VIOLATION', why), message.context_id ?? null));
      return;
    }
    const contextId = message.context_id ?? DEFAULT_CONTEXT;
    try {
      switch (message.type) {
        case 'text':
          this.contexts.add(contextId);
          await session.pushText(contextId, message.text);
          break;
        case 'flush':
          await session.flush(contextId);
          break;
        case 'cancel':
          await session.cancel(contextId);
          break;
        case 'close':
          if (message.context_id !== undefined) {
            await session.end(contextId);
          } else {
            this.phase = 'closing';
            session.close();
          }
          break;
      }
    } catch {
      // The node's call has ended: the events' reader reports how, and closes the socket.
    }
  }

  /** Opens the session through the use case; messages wait until it is open. */
  private start(message: SessionStartMessage): void {
    this.phase = 'starting';
    this.settings = message;
    this.inactivitySec = this.o.limits.inactivityMs(message.inactivity_timeout) / 1000;
    // refresh() keeps a timer's first delay: the asked one needs a timer of its own.
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.idle(), this.inactivitySec * 1000);
    const settings: SpeechSettings = {
      ...openAiSettingsOf({ model: message.model, input: '', voice: message.voice, response_format: message.response_format, speed: message.speed, instructions: message.instructions, sample_rate: message.sample_rate }),
      wordTimings: message.word_timestamps === true,
    };
    const { caller, requestId, speech } = this.o;
    speech
      .speak(caller, { requestId, endpoint: ENDPOINT, text: '', settings }, { kind: 'session', signal: this.opening.signal, deliver: (session) => this.deliver(session) })
      .catch((err: unknown) => this.refuse(err));
  }

  /** Runs the open session until its events end or the socket closes. */
  private async deliver(session: SpeechSession): Promise<void> {
    if (this.phase === 'ended') return;
    this.session = session;
    this.phase = 'open';
    const settings = this.settings!;
    this.send({
      type: 'session.started',
      session_id: this.o.requestId,
      voice: session.info.voice,
      engine: session.info.engine,
      response_format: settings.response_format ?? 'mp3',
      content_type: session.info.contentType,
      sample_rate: session.info.sampleRate,
      word_timestamps: settings.word_timestamps === true,
      max_contexts: session.maxContexts,
      inactivity_timeout: this.inactivitySec,
      max_message_bytes: this.o.maxMessageBytes,
    });
    void this.handleInbox();
    let relayed = false;
    const relaying = this.relay(session).finally(() => (relayed = true));
    await Promise.race([relaying, this.closed]);
    if (relayed) return;
    // The socket closed first (the client left, or was refused): what is left is cancelled, so
    // that the node's final messages say what was spoken and what was in synthesis (metering).
    for (const id of this.contexts) session.cancel(id).catch(() => undefined);
    session.close();
    await Promise.race([relaying, new Promise((resolve) => setTimeout(resolve, WIND_DOWN_MS).unref())]);
  }

  /** Sends the session's events to the client; closes the socket when they end. */
  private async relay(session: SpeechSession): Promise<void> {
    try {
      for await (const event of session.events()) {
        if (event.kind === 'final') this.contexts.delete(event.contextId);
        await this.readByClient();
        // Once the socket is closed the events are still read: their final messages are what metering counts.
        if (this.phase === 'ended') continue;
        this.sendEvent(event);
        this.touch();
      }
      if (this.phase === 'ended') return;
      const usage = session.usage();
      this.send({ type: 'session.done', usage: { characters: usage.characters, audio_seconds: usage.audioSeconds } });
      this.closeSocket(1000, 'session done');
    } catch (err) {
      if (this.phase !== 'ended') this.refuse(err);
    }
  }

  private sendEvent(event: SpeechSessionEvent): void {
    switch (event.kind) {
      case 'audio':
        if (this.settings?.word_timestamps === true && event.words.length > 0) {
          this.send({ type: 'words', context_id: event.contextId, words: event.words.map((w) => ({ word: w.word, start: w.startSec, end: w.endSec })) });
        }
        if (event.audio.length > 0) {
          this.send({ type: 'audio', context_id: event.contextId, bytes: event.audio.length });
          this.o.ws.send(event.audio, { binary: true }, () => this.afterWrite());
        }
        return;
      case 'final':
        this.send({
          type: 'context.done',
          context_id: event.contextId,
          outcome: event.outcome,
          usage: {
            characters: event.charactersSpoken + event.charactersInSynthesis,
            characters_spoken: event.charactersSpoken,
            characters_in_synthesis: event.charactersInSynthesis,
            characters_dropped: event.charactersDropped,
            audio_seconds: event.audioSeconds,
          },
        });
        return;
      case 'error':
        this.send(errorMessageOf(event.error, event.contextId === '' ? null : event.contextId));
        return;
    }
  }

  /** Resolves once the client has read enough of what is queued (backpressure). */
  private async readByClient(): Promise<void> {
    if (this.phase === 'ended' || this.o.ws.bufferedAmount <= SEND_HIGH_WATER_BYTES) return;
    await new Promise<void>((resolve) => (this.readable = resolve));
    this.readable = undefined;
  }

  /** A write reached the socket: a wait for the client to read ends once little is left queued. */
  private afterWrite(): void {
    if (this.readable !== undefined && this.o.ws.bufferedAmount <= SEND_HIGH_WATER_BYTES / 2) this.readable();
  }

  private send(message: ServerMessage): void {
    if (this.o.ws.readyState !== this.o.ws.OPEN) return;
    this.o.ws.send(JSON.stringify(message), () => this.afterWrite());
  }

  /** The client or the session did something: the inactivity timer starts again. */
  private touch(): void {
    this.timer.refresh();
  }

  private idle(): void {
    if (this.phase === 'ended') return;
    if (this.readable !== undefined) {
      this.o.logger.warn('speech socket: the client does not read its audio', { request_id: this.o.requestId, buffered_bytes: this.o.ws.bufferedAmount });
      this.refuse(new TtsError('STREAM_CLIENT_TOO_SLOW'));
    } else {
      this.refuse(new TtsError('STREAM_INACTIVITY_TIMEOUT', `Nothing was sent or spoken for ${this.inactivitySec} s; the session is closed.`));
    }
  }

  /** Ends the session with an error message and the close code of its error. */
  private refuse(err: unknown): void {
    if (this.phase === 'ended') return;
    const error = err instanceof TtsError ? err : new TtsError('INTERNAL_ERROR', undefined, { cause: err });
    if (error.code === 'INTERNAL_ERROR') this.o.logger.error('speech socket failed', { request_id: this.o.requestId, err });
    this.send(errorMessageOf(error, null));
    this.closeSocket(closeCodeOf(error.code), error.code);
  }

  private closeSocket(code: number, reason: string): void {
    if (this.phase === 'ended') return;
    this.phase = 'ended';
    clearTimeout(this.timer);
    this.readable?.();
    const { ws } = this.o;
    ws.close(code, reason);
    // A client that does not read never answers the close frame queued behind its audio.
    setTimeout(() => ws.terminate(), CLOSE_GRACE_MS).unref();
  }
}

