/**
 * An interactive session: text arrives in pieces while audio flows out (SynthesizeInteractive).
 * The session holds up to `maxContexts` contexts, each an independent utterance with the
 * session's voice and settings (resolved once, setupSynthesis): its text is cut by a
 * TextSegmenter at clause and sentence boundaries as it arrives, each piece is rendered by the
 * pipeline as one plan (renderRecorded: engine slots taken in admission like any request's, per
 * tenant) and fed to the context's one encoder, so the context's audio is one stream whose word
 * times run on over all its pieces. Pieces of one context render one after the other, in order.
 *
 * Cancel (barge-in) drops the buffered text, aborts the piece in synthesis (its engine slot is
 * released by the abort: renderAudio's admission wait or engine call rejects at once) and the
 * encoder, and sends the context's final message at once: no audio of the context is sent after
 * it. Every context ends with exactly one final message, which counts the characters (as sent)
 * spoken, in synthesis when it ended early, and dropped: what the facade meters.
 *
 * Load: text a context holds and has not yet handed to the pipeline counts in the node's queued
 * work (Admission.trackChars) for its tenant, as a request's text does; the pipeline counts it
 * from then on.
 */
import { performance } from 'node:perf_hooks';
import { isSsml, TtsError } from '@tts/common';
import { createEncoder, type AudioEncoder } from '../audio/index.js';
import { TextSegmenter, type TextSegment } from '../text/segmenter.js';
import { encoderChoice, newStats, planSynthesis, renderRecorded, type PipelineDeps, type SynthesisJob, type SynthesisSetup, type SynthesisStats } from './pipeline.js';
import type { WordTiming } from './word-timings.js';

/** Bounds of a session. */
export interface SessionLimits {
  /** Contexts open at once. */
  readonly maxContexts: number;
  /** Characters one context may hold not yet handed to the pipeline. */
  readonly maxBufferedChars: number;
}

/** How a context ended. */
export type ContextOutcome = 'completed' | 'cancelled' | 'failed';

/**
 * Figures of one context, over all its pieces: `characters` handed to the pipeline (as sent),
 * `timeToFirstAudioMs` from the context's first text to its first audio bytes (0 without audio),
 * `totalMs` from its first text to its final message.
 */
export type ContextStats = Pick<SynthesisStats, 'characters' | 'sentences' | 'audioSeconds' | 'computeSeconds' | 'timeToFirstAudioMs' | 'queueMs' | 'loadMs'> & { totalMs: number };

/** What a session sends, in order per context. */
export type SessionEvent =
  | { readonly kind: 'audio'; readonly contextId: string; readonly bytes: Buffer; readonly words: readonly WordTiming[]; readonly sequence: number }
  | {
      readonly kind: 'final';
      readonly contextId: string;
      readonly outcome: ContextOutcome;
      /** Characters whose audio was all sent. */
      readonly charactersSpoken: number;
      /** Characters being synthesized when the context was cancelled or failed. */
      readonly charactersInSynthesis: number;
      /** Characters buffered and never synthesized. */
      readonly charactersDropped: number;
      readonly stats: ContextStats;
    }
  | { readonly kind: 'error'; readonly contextId: string; readonly error: TtsError };

/** Takes the session's events; resolves once the next one may be sent (backpressure). */
export type SessionSink = (event: SessionEvent) => Promise<void>;

/** Pause put between two pieces of a context after a sentence end, s (edge trimming removed the engine's own). */
const SENTENCE_GAP_SEC = 0.25;
/** ... after a clause boundary, s. */
const CLAUSE_GAP_SEC = 0.1;

/** The pause before a piece that follows `previous`. */
function gapAfter(previous: string): number {
  if (/[.!?\u2026\u3002\uFF01\uFF1F]["'\u201D\u2019)\]]*$/.test(previous)) return SENTENCE_GAP_SEC;
  return /[,;:\u2014\u2013\uFF0C\u3001]$/.test(previous) ? CLAUSE_GAP_SEC : 0;
}

/** The SSML document's end tag: an SSML context speaks its document once this has arrived. */
const SPEAK_END = /<\/speak\s*>/;

/** One context of a session. */
class SessionContext {
  private readonly segmenter: TextSegmenter;
  /** Pieces waiting for the pipeline, in order. */
  private readonly queue: TextSegment[] = [];
  private queuedChars = 0;
  /** At the start of an utterance (nothing yet, or an SSML document just ended): the text may be SSML. */
  private atStart = true;
  /** Text at the start whose kind (plain or SSML) is not known yet: a prefix of "<speak". */
  private undecided = '';
  /** The SSML document being received (SSML mode), else undefined. */
  private ssml: string | undefined;
  private ended = false;
  private cancelled = false;
  private finished = false;
  /** Characters of the piece the pipeline is rendering. */
  private inSynthesis = 0;
  private spoken = 0;
  /** Characters counted in the node's queued work for this context. */
  private tracked = 0;
  private worker: Promise<void> | undefined;
  private readonly controller = new AbortController();
  private encoder: AudioEncoder | undefined;
  private pump: Promise<void> | undefined;
  private encodingError: unknown;
  private pendingWords: WordTiming[] = [];
  private sequence = 0;
  /** Seconds of audio handed to the encoder: where the next piece's words start. */
  private audioSec = 0;
  private previousText: string | undefined;
  private readonly openedAt = performance.now();
  private readonly stats: ContextStats = { characters: 0, sentences: 0, audioSeconds: 0, computeSeconds: 0, timeToFirstAudioMs: 0, queueMs: 0, loadMs: 0, totalMs: 0 };
  /** Resolves once the final message is sent. */
  readonly done: Promise<void>;
  private resolveDone!: () => void;

  constructor(
    readonly id: string,
    private readonly session: InteractiveSession,
  ) {
    this.segmenter = new TextSegmenter();
    this.done = new Promise((resolve) => (this.resolveDone = resolve));
  }

  /** Characters held and not yet handed to the pipeline. */
  private get held(): number {
    return this.undecided.length + (this.ssml?.length ?? 0) + this.segmenter.buffered + this.queuedChars;
  }

  /** Adds text; throws STREAM_CONTEXT_CLOSED after end, STREAM_BUFFER_FULL past the limit (the text is refused). */
  text(text: string): void {
    if (this.ended) throw new TtsError('STREAM_CONTEXT_CLOSED', `Context "${this.id}" has ended its input.`);
    const limit = this.session.limits.maxBufferedChars;
    if (this.held + text.length > limit) {
      throw new TtsError('STREAM_BUFFER_FULL', `Context "${this.id}" holds ${this.held} characters not yet synthesized; ${text.length} more would pass its ${limit}.`, { retryAfterSec: 1 });
    }
    let rest = text;
    while (rest !== '') rest = this.take(rest);
    this.afterChange();
  }

  /** Routes text by the context's mode; returns what is left for the next mode (after an SSML document). */
  private take(text: string): string {
    if (this.ssml !== undefined) {
      this.ssml += text;
      const end = SPEAK_END.exec(this.ssml);
      if (end === null) return '';
      const cut = end.index + end[0].length;
      const rest = this.ssml.slice(cut);
      this.enqueue({ text: this.ssml.slice(0, cut).trim(), chars: cut });
      this.ssml = undefined;
      this.atStart = true;
      return rest;
    }
    if (this.atStart) {
      // The text may be SSML: wait until "<speak" is ruled in or out. White space before the first
      // word is dropped, not held (keep-alive messages are a space) nor counted.
      const all = (this.undecided + text).trimStart();
      if (all === '' || '<speak'.startsWith(all)) {
        this.undecided = all;
        return '';
      }
      this.undecided = '';
      this.atStart = false;
      if (isSsml(all)) {
        this.ssml = '';
        return all;
      }
      text = all;
    }
    for (const s of this.segmenter.push(text)) this.enqueue(s);
    return '';
  }

  /** Hands everything held to the pipeline now (flush, end). */
  flush(): void {
    if (this.ssml !== undefined) {
      // An SSML document flushed before its end tag is spoken as it is (and refused if incomplete).
      if (this.ssml !== '') this.enqueue({ text: this.ssml.trim(), chars: this.ssml.length });
      this.ssml = undefined;
      this.atStart = true;
    } else if (this.undecided !== '') {
      this.enqueue({ text: this.undecided, chars: this.undecided.length });
      this.undecided = '';
      this.atStart = false;
    }
    const rest = this.segmenter.flush();
    if (rest) this.enqueue(rest);
    this.afterChange();
  }

  /** End of input: what is held is spoken, then the final message. */
  end(): void {
    if (this.ended) return;
    this.flush();
    this.ended = true;
    this.kick();
  }

  /** Barge-in: nothing more of this context is sent but its final message, now. */
  cancel(): void {
    if (this.finished || this.cancelled) return;
    this.cancelled = true;
    const inSynthesis = this.inSynthesis;
    const dropped = this.held;
    this.controller.abort();
    this.encoder?.abort();
    void this.finish('cancelled', inSynthesis, dropped);
  }

  private enqueue(segment: TextSegment): void {
    this.queue.push(segment);
    this.queuedChars += segment.chars;
  }

  private afterChange(): void {
    this.track();
    this.kick();
  }

  /** Keeps the node's queued work in step with the text this context holds. */
  private track(): void {
    const held = this.cancelled || this.finished ? 0 : this.held;
    if (held === this.tracked) return;
    const { setup, job, deps } = this.session;
    deps.admission.trackChars(setup.engine.name, held - this.tracked, job.tenant ?? '', job.tenantWeight ?? 1);
    this.tracked = held;
  }

  /** Starts the worker when there is work and none runs. */
  private kick(): void {
    if (this.worker !== undefined || this.finished || this.cancelled) return;
    if (this.queue.length === 0 && !this.ended) return;
    this.worker = this.work().finally(() => {
      this.worker = undefined;
      if (this.queue.length > 0 || this.ended) this.kick();
    });
  }

  private async work(): Promise<void> {
    for (let segment = this.queue.shift(); segment !== undefined && !this.cancelled; segment = this.queue.shift()) {
      this.queuedChars -= segment.chars;
      this.inSynthesis = segment.chars;
      this.track();
      try {
        await this.speak(segment);
      } catch (err) {
        if (this.cancelled) return;
        // An encoder failure shows here as the cancelled write that was waiting on it.
        await this.fail(this.encodingError ?? err);
        return;
      }
      this.spoken += segment.chars;
      this.inSynthesis = 0;
    }
    if (this.cancelled || !this.ended || this.queue.length > 0) return;
    try {
      if (this.encoder) {
        await this.encoder.end();
        await this.pump;
        if (this.encodingError !== undefined) throw this.encodingError;
      }
      if (this.cancelled) return;
      if (this.pendingWords.length > 0) await this.emitAudio(Buffer.alloc(0));
      await this.finish('completed', 0, 0);
    } catch (err) {
      if (!this.cancelled) await this.fail(err);
    }
  }

  /** Renders one piece into the context's encoder. */
  private async speak(segment: TextSegment): Promise<void> {
    const { setup, job, deps } = this.session;
    let plan;
    try {
      plan = planSynthesis({ ...job, text: segment.text }, deps, setup);
    } catch (err) {
      // Punctuation or white space alone: nothing to say, nothing wrong.
      if (err instanceof TtsError && err.code === 'TTS_TEXT_EMPTY') return;
      throw err;
    }
    const encoder = this.encoderOf();
    const gap = this.previousText === undefined ? 0 : gapAfter(this.previousText);
    this.previousText = segment.text;
    if (gap > 0) {
      const silence = new Float32Array(Math.round(gap * setup.outputRate));
      await encoder.write(silence);
      this.audioSec += silence.length / setup.outputRate;
    }
    const offset = this.audioSec;
    const stats = newStats(plan);
    try {
      for await (const piece of renderRecorded(plan, deps, stats, this.controller.signal)) {
        if (this.cancelled) return;
        for (const w of piece.words) this.pendingWords.push({ word: w.word, start: w.start + offset, end: w.end + offset });
        if (piece.samples.length > 0) await encoder.write(piece.samples);
        this.audioSec += piece.samples.length / setup.outputRate;
      }
    } finally {
      this.stats.characters += segment.chars;
      this.stats.sentences += stats.sentences;
      this.stats.computeSeconds += stats.computeSeconds;
      this.stats.queueMs += stats.queueMs;
      this.stats.loadMs += stats.loadMs;
    }
  }

  /** The context's encoder, started with its first piece; its output goes out as audio messages. */
  private encoderOf(): AudioEncoder {
    if (this.encoder) return this.encoder;
    const { setup, job, deps } = this.session;
    const encoder = createEncoder(job.format, setup.outputRate, { streaming: true, signal: this.controller.signal, ...encoderChoice(deps, job) });
    this.encoder = encoder;
    this.pump = (async () => {
      try {
        for await (const bytes of encoder) {
          if (this.cancelled) return;
          if (bytes.length > 0) await this.emitAudio(bytes);
        }
      } catch (err) {
        // A write waiting on the encoder fails with it; the worker reports this cause.
        if (!this.cancelled) this.encodingError = err;
        encoder.abort();
      }
    })();
    return encoder;
  }

  private async emitAudio(bytes: Buffer): Promise<void> {
    if (this.cancelled || this.finished) return;
    if (this.stats.timeToFirstAudioMs === 0 && bytes.length > 0) this.stats.timeToFirstAudioMs = performance.now() - this.openedAt;
    const words = this.pendingWords;
    this.pendingWords = [];
    await this.session.send({ kind: 'audio', contextId: this.id, bytes, words, sequence: this.sequence++ });
  }

  /** Reports the error, then ends the context (FAILED). */
  private async fail(err: unknown): Promise<void> {
    if (this.finished) return;
    const error = err instanceof TtsError ? err : new TtsError('INTERNAL_ERROR', undefined, { cause: err });
    const inSynthesis = this.inSynthesis;
    const dropped = this.held;
    this.cancelled = true;
    this.controller.abort();
    this.encoder?.abort();
    this.session.logFailure(this.id, error);
    await this.session.send({ kind: 'error', contextId: this.id, error });
    await this.finish('failed', inSynthesis, dropped);
  }

  private async finish(outcome: ContextOutcome, charactersInSynthesis: number, charactersDropped: number): Promise<void> {
    if (this.finished) return;
    this.finished = true;
    this.track();
    this.session.forget(this);
    this.stats.audioSeconds = this.audioSec;
    this.stats.totalMs = performance.now() - this.openedAt;
    try {
      await this.session.send({ kind: 'final', contextId: this.id, outcome, charactersSpoken: this.spoken, charactersInSynthesis, charactersDropped, stats: { ...this.stats } });
    } finally {
      this.resolveDone();
    }
  }
}

/** An interactive session of one caller on this node. */
export class InteractiveSession {
  private readonly contexts = new Map<string, SessionContext>();
  /** Every context ever opened that has not sent its final message. */
  private readonly open = new Set<SessionContext>();

  /**
   * `job`: the session's settings (its text unused), `setup`: them resolved (setupSynthesis);
   * `sink` takes every event (audio, final, error) in the order they must be sent.
   */
  constructor(
    readonly job: SynthesisJob,
    readonly setup: SynthesisSetup,
    readonly deps: PipelineDeps,
    readonly limits: SessionLimits,
    private readonly sink: SessionSink,
    private readonly onFailure: (contextId: string, error: TtsError) => void = () => undefined,
  ) {}

  /** Text for a context, opening it when new; a refusal is an error event and the session goes on. */
  text(contextId: string, text: string): void {
    let context = this.contexts.get(contextId);
    if (!context) {
      if (this.contexts.size >= this.limits.maxContexts) {
        this.refuse(contextId, new TtsError('STREAM_CONTEXTS_EXCEEDED', `The session has ${this.contexts.size} contexts open; it may hold ${this.limits.maxContexts}.`, { retryAfterSec: 1 }));
        return;
      }
      context = new SessionContext(contextId, this);
      this.contexts.set(contextId, context);
      this.open.add(context);
    }
    try {
      context.text(text);
    } catch (err) {
      this.refuse(contextId, err);
    }
  }

  /** Speaks what the context holds now. */
  flush(contextId: string): void {
    const context = this.contexts.get(contextId);
    if (!context) this.refuse(contextId, new TtsError('STREAM_CONTEXT_UNKNOWN', `The session has no context "${contextId}" to flush.`));
    else context.flush();
  }

  /** Ends the context's input. */
  end(contextId: string): void {
    const context = this.contexts.get(contextId);
    if (!context) this.refuse(contextId, new TtsError('STREAM_CONTEXT_UNKNOWN', `The session has no context "${contextId}" to end.`));
    else context.end();
  }

  /** Barge-in; a context the session does not have (unknown, or already final) is left alone. */
  cancel(contextId: string): void {
    this.contexts.get(contextId)?.cancel();
  }

  /** Ends every open context's input (the client's half-close); resolves once all sent their final message. */
  async endAll(): Promise<void> {
    for (const c of this.contexts.values()) c.end();
    await this.settled();
  }

  /** Cancels every open context (the call ended); resolves once all sent their final message. */
  async cancelAll(): Promise<void> {
    for (const c of this.contexts.values()) c.cancel();
    await this.settled();
  }

  /** Contexts open. */
  get contextCount(): number {
    return this.contexts.size;
  }

  private async settled(): Promise<void> {
    while (this.open.size > 0) await Promise.all([...this.open].map((c) => c.done));
  }

  private refuse(contextId: string, err: unknown): void {
    const error = err instanceof TtsError ? err : new TtsError('INTERNAL_ERROR', undefined, { cause: err });
    void this.send({ kind: 'error', contextId, error });
  }

  /** @internal A context's event. */
  send(event: SessionEvent): Promise<void> {
    return this.sink(event).catch(() => undefined);
  }

  /** @internal A context sent its final message: its id is free again. */
  forget(context: SessionContext): void {
    if (this.contexts.get(context.id) === context) this.contexts.delete(context.id);
    void context.done.then(() => this.open.delete(context));
  }

  /** @internal */
  logFailure(contextId: string, error: TtsError): void {
    this.onFailure(contextId, error);
  }
}
