/**
 * One Wyoming client (a TCP connection): reads its events in order and answers them through the
 * speech use case. `describe` -> `info`; `ping` -> `pong`; `synthesize` -> `audio-start`,
 * `audio-chunk`s (raw 16-bit mono PCM at the voice's rate), `audio-stop`; the streaming form
 * `synthesize-start`, `synthesize-chunk`s (audio flows as clauses complete), `synthesize-stop` ->
 * the rest of the audio, then `synthesize-stopped` (a `synthesize` inside a stream is the copy of its
 * text clients send for older servers: ignored). Other event types are ignored, as the reference
 * servers do. Each synthesis is one interactive session of the use case (speak.ts, output
 * `session`) with one context; a failure answers an `error` event (text and catalogue code) and
 * closes the connection, as the reference servers do; a client that goes away cancels its session
 * at once (barge-in: the node's slot is freed).
 */
import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import { TtsError, type Logger } from '@tts/common';
import type { Voice } from '@tts/proto/synthesis';
import type { Caller } from '../../middleware/access.js';
import type { ClusterView } from '../../cluster/cluster.js';
import type { SessionLimits } from '../session-limits.js';
import type { SpeechSession } from '../../speech/interactive.js';
import type { Speech } from '../../speech/speak.js';
import { wyomingSettingsOf } from '../../speech/speech-request.js';
import { EventDecoder, encodeEvent, type FrameLimits, type WyomingEvent } from './protocol.js';
import { infoOf, pickVoice, type AskedVoice } from './voices.js';


/** What a connection works with. */
export interface WyomingServices {
  readonly speech: Pick<Speech, 'speak'>;
  readonly cluster: Pick<ClusterView, 'snapshot'>;
  /** The caller every synthesis is metered to, checked at each synthesis (a revoked key stops at once). */
  readonly caller: () => Promise<Caller>;
  /** The caller's session places (TTS_TIER_SESSIONS): one per synthesis, SESSION_LIMIT_EXCEEDED past them. */
  readonly sessionPlaces: Pick<SessionLimits, 'acquire'>;
  /** The platform default voice (a synthesis naming none speaks with it). */
  readonly defaultVoice: string;
  /** Longest text of one `synthesize`. */
  readonly maxTextChars: number;
  readonly logger: Logger;
}

/** How a connection is held. */
export interface ConnectionOptions {
  readonly limits: FrameLimits;
  /**
   * Closed after this long without a byte either way, ms; not while the platform speaks a synthesize
   * or the end of a stream (that wait is not the client's), unless the client does not read.
   */
  readonly inactivityMs: number;
}

/** The one context of a Wyoming synthesis in its session. */
const CONTEXT = 'wyoming';
/** Samples in one audio-chunk (the reference servers' default). */
const SAMPLES_PER_CHUNK = 1024;
/** 16-bit mono. */
const WIDTH = 2;
const CHANNELS = 1;
/** Events read ahead while one is being answered; past it the socket is paused. */
const MAX_QUEUED_EVENTS = 64;
/** How long a closing connection may take to flush its last error event before it is cut, ms. */
const CLOSE_GRACE_MS = 2000;

/** A synthesis running: its session (once the use case opened it) and its end. */
interface Run {
  /** The session, or undefined when the use case failed before opening it. */
  readonly session: Promise<SpeechSession | undefined>;
  /** Settles (never rejects) once the use case returned; a failure has closed the connection. */
  readonly finished: Promise<void>;
}

/** A client's connection. */
export class WyomingConnection {
  private readonly decoder: EventDecoder;
  /** Cancels the running synthesis when the client goes away or the connection fails. */
  private readonly abort = new AbortController();
  private readonly idle: NodeJS.Timeout;
  private queue: Promise<void> = Promise.resolve();
  private queued = 0;
  private stream: Run | undefined;
  private readonly runs = new Set<Promise<void>>();
  /** The platform's turn: a synthesize or a stopped stream being spoken (its wait is not the client's inactivity). */
  private speaking = 0;
  /** Waiting for the client to read what was written. */
  private blocked = false;
  private closed = false;
  private readonly socketClosed: Promise<void>;

  constructor(private readonly socket: Socket, private readonly s: WyomingServices, private readonly o: ConnectionOptions) {
    this.decoder = new EventDecoder(o.limits);
    socket.setNoDelay(true);
    this.socketClosed = new Promise((resolve) => socket.once('close', () => resolve()));
    socket.on('data', (chunk: Buffer) => this.received(chunk));
    // A reset: 'close' follows; the session is cancelled there.
    socket.on('error', () => undefined);
    socket.once('close', () => this.shut());
    this.idle = setTimeout(() => this.inactive(), o.inactivityMs);
  }

  /** Resolves once the socket closed and every synthesis of the connection ended. */
  async done(): Promise<void> {
    await this.socketClosed;
    await Promise.all(this.runs);
  }

  /** Closes the connection now (the server stops): its synthesis is cancelled. */
  close(): void {
    this.shut();
    this.socket.destroy();
  }

  private received(chunk: Buffer): void {
    if (this.closed) return;
    this.idle.refresh();
    let events: WyomingEvent[];
    try {
      events = this.decoder.push(chunk);
    } catch (err) {
      this.fail(err);
      return;
    }
    for (const event of events) this.enqueue(event);
  }

  private enqueue(event: WyomingEvent): void {
    this.queued += 1;
    if (this.queued >= MAX_QUEUED_EVENTS) this.socket.pause();
    this.queue = this.queue
      .then(() => (this.closed ? undefined : this.handle(event)))
      .catch((err: unknown) => this.fail(err))
      .finally(() => {
        this.queued -= 1;
        if (this.queued < MAX_QUEUED_EVENTS && !this.closed) this.socket.resume();
      });
  }

  private async handle(event: WyomingEvent): Promise<void> {
    const data = event.data;
    switch (event.type) {
      case 'describe':
        await this.write({ type: 'info', data: infoOf((await this.s.cluster.snapshot()).voices) });
        return;
      case 'ping':
        await this.write({ type: 'pong', data: { text: typeof data['text'] === 'string' ? data['text'] : null } });
        return;
      case 'synthesize': {
        // Inside a stream: the copy of the streamed text for servers without streaming.
        if (this.stream) return;
        const text = stringField(data, 'text');
        if (text.trim() === '') throw new TtsError('TTS_TEXT_EMPTY', 'text is empty or only white space.', { loc: ['text'] });
        if (text.length > this.s.maxTextChars) throw new TtsError('TTS_TEXT_TOO_LONG', `text is longer than ${this.s.maxTextChars} characters; stream it with synthesize-start and synthesize-chunk.`, { loc: ['text'] });
        this.speaking += 1;
        try {
          const run = await this.start(askedVoiceOf(data), 'WYOMING synthesize');
          const session = await run.session;
          if (session) {
            await session.pushText(CONTEXT, text);
            session.close();
          }
          await run.finished;
        } finally {
          this.speaking -= 1;
        }
        return;
      }
      case 'synthesize-start':
        if (this.stream) throw outOfOrder('synthesize-start came inside a stream; end it with synthesize-stop first.');
        this.stream = await this.start(askedVoiceOf(data), 'WYOMING synthesize-start');
        return;
      case 'synthesize-chunk': {
        const run = this.stream;
        if (!run) throw outOfOrder('synthesize-chunk came outside a stream; send synthesize-start first.');
        const text = stringField(data, 'text');
        const session = await run.session;
        if (session && text !== '') await session.pushText(CONTEXT, text);
        return;
      }
      case 'synthesize-stop': {
        const run = this.stream;
        if (!run) throw outOfOrder('synthesize-stop came outside a stream; send synthesize-start first.');
        this.stream = undefined;
        this.speaking += 1;
        try {
          (await run.session)?.close();
          await run.finished;
        } finally {
          this.speaking -= 1;
        }
        if (!this.closed) await this.write({ type: 'synthesize-stopped', data: {} });
        return;
      }
      default:
        return;
    }
  }

  /**
   * Opens a synthesis through the use case: the configured caller, the voice picked from the
   * cluster's, a session place, then the session, whose audio `relay` writes out until it ends.
   */
  private async start(asked: AskedVoice, endpoint: string): Promise<Run> {
    const caller = await this.s.caller();
    const voice = pickVoice(asked, (await this.s.cluster.snapshot()).voices, this.s.defaultVoice);
    const release = this.s.sessionPlaces.acquire(caller);
    let opened!: (session: SpeechSession | undefined) => void;
    const session = new Promise<SpeechSession | undefined>((resolve) => (opened = resolve));
    const finished = this.s.speech
      .speak(caller, { requestId: `req_wyoming_${randomUUID()}`, endpoint, text: '', settings: wyomingSettingsOf(voice.id, voice.sampleRate) }, {
        kind: 'session',
        signal: this.abort.signal,
        deliver: async (s) => {
          opened(s);
          await this.relay(s, voice);
        },
      })
      .catch((err: unknown) => this.fail(err))
      .finally(() => {
        release();
        opened(undefined);
      });
    this.runs.add(finished);
    void finished.finally(() => this.runs.delete(finished));
    return { session, finished };
  }

  /** Writes the session's audio as Wyoming audio events until the session ends; throws its error. */
  private async relay(session: SpeechSession, voice: Voice): Promise<void> {
    const rate = session.info.sampleRate || voice.sampleRate;
    const format = { rate, width: WIDTH, channels: CHANNELS };
    const chunkBytes = SAMPLES_PER_CHUNK * WIDTH * CHANNELS;
    let started = false;
    let sentBytes = 0;
    let carry = Buffer.alloc(0);
    const begin = async (): Promise<void> => {
      if (started) return;
      started = true;
      await this.write({ type: 'audio-start', data: { ...format, timestamp: 0 } });
    };
    const timestamp = (): number => Math.round((sentBytes / (WIDTH * CHANNELS) / rate) * 1000);
    for await (const e of session.events()) {
      if (this.closed) throw new TtsError('TTS_CANCELLED', 'The client went away.');
      if (e.kind === 'error') throw e.error;
      if (e.kind === 'audio') {
        await begin();
        // Whole samples only: an odd byte waits for the next piece.
        const pcm = carry.length === 0 ? e.audio : Buffer.concat([carry, e.audio]);
        const whole = pcm.length - (pcm.length % (WIDTH * CHANNELS));
        carry = Buffer.from(pcm.subarray(whole));
        for (let at = 0; at < whole; at += chunkBytes) {
          const audio = pcm.subarray(at, Math.min(at + chunkBytes, whole));
          await this.write({ type: 'audio-chunk', data: { ...format, timestamp: timestamp() }, payload: audio });
          sentBytes += audio.length;
        }
      } else if (e.kind === 'final') {
        if (e.outcome !== 'completed') throw new TtsError(e.outcome === 'cancelled' ? 'TTS_CANCELLED' : 'TTS_ENGINE_FAILED');
        await begin();
        await this.write({ type: 'audio-stop', data: { timestamp: timestamp() } });
      }
    }
  }

  /** Writes an event; resolves once the socket takes more (or closed). */
  private async write(event: WyomingEvent): Promise<void> {
    if (this.closed) return;
    this.idle.refresh();
    if (this.socket.write(encodeEvent(event))) return;
    this.blocked = true;
    await new Promise<void>((resolve) => {
      const done = (): void => {
        this.socket.off('drain', done);
        this.socket.off('close', done);
        resolve();
      };
      this.socket.on('drain', done);
      this.socket.on('close', done);
    });
    this.blocked = false;
  }

  /** Nothing either way for the inactivity time: closed, unless the platform is the one synthesizing. */
  private inactive(): void {
    if (this.closed) return;
    if (this.speaking > 0 && !this.blocked) {
      this.idle.refresh();
      return;
    }
    this.fail(new TtsError('WYOMING_IDLE_TIMEOUT', `Nothing was sent or received for ${this.o.inactivityMs / 1000} s; the connection is closed.`));
  }

  /** Answers an error event and closes the connection; its synthesis is cancelled. */
  private fail(err: unknown): void {
    if (this.closed) return;
    const error = err instanceof TtsError ? err : new TtsError('INTERNAL_ERROR');
    if (!(err instanceof TtsError)) this.s.logger.error('wyoming connection failed', { error: err instanceof Error ? err.message : String(err) });
    this.socket.end(encodeEvent({ type: 'error', data: { text: error.message, code: error.code } }));
    this.shut();
    setTimeout(() => this.socket.destroy(), CLOSE_GRACE_MS).unref();
  }

  private shut(): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.idle);
    this.abort.abort();
  }
}

function outOfOrder(message: string): TtsError {
  return new TtsError('STREAM_PROTOCOL_VIOLATION', message);
}

/** A string field of an event's data (WYOMING_EVENT_INVALID when absent or not a string). */
function stringField(data: Readonly<Record<string, unknown>>, field: string): string {
  const value = data[field];
  if (typeof value !== 'string') throw new TtsError('WYOMING_EVENT_INVALID', `The event's ${field} is missing or not a string.`, { loc: [field] });
  return value;
}

/** The `voice` field of a synthesis (WYOMING_EVENT_INVALID when it is not an object of strings). */
function askedVoiceOf(data: Readonly<Record<string, unknown>>): AskedVoice {
  const voice = data['voice'];
  if (voice === undefined || voice === null) return {};
  if (typeof voice !== 'object' || Array.isArray(voice)) throw new TtsError('WYOMING_EVENT_INVALID', 'The event\'s voice is not an object.', { loc: ['voice'] });
  const v = voice as Record<string, unknown>;
  const text = (field: string): string | undefined => {
    const value = v[field];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string') throw new TtsError('WYOMING_EVENT_INVALID', `The event's voice.${field} is not a string.`, { loc: ['voice', field] });
    return value;
  };
  const name = text('name');
  const language = text('language');
  return { ...(name === undefined ? {} : { name }), ...(language === undefined ? {} : { language }) };
}
