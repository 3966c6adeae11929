/**
 * A test client of an interactive session (SynthesizeInteractive, on a node or through the
 * scheduler): sends the contract's messages and keeps every message received, in order, so a test
 * can wait for one and look at what came before and after it.
 */
import type { ClientDuplexStream } from '@grpc/grpc-js';
import { AudioEncoding, type ContextFinal, type InteractiveRequest, type InteractiveResponse, type SpeechSpec } from '@tts/proto/synthesis';
import { fromServiceError, type TtsError } from '@tts/common';

/** A message received, with when it came (performance.now()). */
export interface Received {
  readonly at: number;
  readonly message: NonNullable<InteractiveResponse['message']>;
}

/** Settings of a session: flite:slt as WAV unless told otherwise. */
export function sessionSpeech(o: Partial<SpeechSpec> = {}): SpeechSpec {
  return { text: '', voice: 'flite:slt', engine: '', speed: 1, encoding: AudioEncoding.AUDIO_ENCODING_WAV, sampleRate: 0, language: '', instructions: '', rawText: false, watermarkPayload: 0, clone: undefined, wordTimings: true, bitrateKbps: 0, lexicon: [], ...o };
}

/** One session call and what it received. */
export class SessionClient {
  readonly received: Received[] = [];
  /** The error the call ended with, once it did. */
  error: TtsError | undefined;
  ended = false;
  private waiters: (() => void)[] = [];

  constructor(readonly call: ClientDuplexStream<InteractiveRequest, InteractiveResponse>) {
    call.on('data', (r: InteractiveResponse) => {
      if (r.message) this.received.push({ at: performance.now(), message: r.message });
      this.wake();
    });
    call.on('error', (err) => {
      this.error = fromServiceError(err);
      this.ended = true;
      this.wake();
    });
    call.on('end', () => {
      this.ended = true;
      this.wake();
    });
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  start(speech: SpeechSpec = sessionSpeech(), o: { requestId?: string; tenantId?: string } = {}): void {
    this.call.write({ message: { $case: 'start', value: { requestId: o.requestId ?? `session-${Date.now()}`, tenantId: o.tenantId ?? '', tenantWeight: 0, speech } } });
  }

  text(contextId: string, text: string): void {
    this.call.write({ message: { $case: 'text', value: { contextId, text } } });
  }

  flush(contextId: string): void {
    this.call.write({ message: { $case: 'flush', value: { contextId } } });
  }

  cancel(contextId: string): void {
    this.call.write({ message: { $case: 'cancel', value: { contextId } } });
  }

  end(contextId: string): void {
    this.call.write({ message: { $case: 'end', value: { contextId } } });
  }

  /** Waits until `check` holds over what was received (or the call ended: then it throws). */
  async until(check: (received: readonly Received[]) => boolean, what: string, timeoutMs = 20_000): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    while (!check(this.received)) {
      if (this.ended) throw new Error(`the call ended (${this.error?.code ?? 'ok'}) before ${what}`);
      const left = deadline - performance.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Waits until the call ended; the error it ended with, if any. */
  async closed(timeoutMs = 20_000): Promise<TtsError | undefined> {
    const deadline = performance.now() + timeoutMs;
    while (!this.ended) {
      if (performance.now() > deadline) throw new Error('timed out waiting for the call to end');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 100);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.error;
  }

  /** The audio messages of a context, in order. */
  audio(contextId: string): { at: number; data: Buffer; words: { word: string; startSec: number; endSec: number }[]; sequence: number }[] {
    return this.received.flatMap((r) => (r.message.$case === 'audio' && r.message.value.contextId === contextId ? [{ at: r.at, ...r.message.value }] : []));
  }

  /** The bytes of a context's audio. */
  bytes(contextId: string): Buffer {
    return Buffer.concat(this.audio(contextId).map((a) => a.data));
  }

  /** The final message of a context (the first: there must be one only). */
  final(contextId: string): ContextFinal | undefined {
    const finals = this.received.flatMap((r) => (r.message.$case === 'final' && r.message.value.contextId === contextId ? [r.message.value] : []));
    return finals[0];
  }

  /** When the final message of a context came. */
  finalAt(contextId: string): number | undefined {
    return this.received.find((r) => r.message.$case === 'final' && r.message.value.contextId === contextId)?.at;
  }

  /** The error messages (of a context, or all). */
  errors(contextId?: string): { contextId: string; code: string; message: string }[] {
    return this.received.flatMap((r) => (r.message.$case === 'error' && (contextId === undefined || r.message.value.contextId === contextId) ? [r.message.value] : []));
  }

  hasFinal(contextId: string): (received: readonly Received[]) => boolean {
    return (received) => received.some((r) => r.message.$case === 'final' && r.message.value.contextId === contextId);
  }
}
