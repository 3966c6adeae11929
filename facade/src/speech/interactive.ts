/**
 * An interactive speech session as the facade's protocol adapters see it (the ElevenLabs
 * multi-context WebSocket, Wyoming, the native WebSocket): a small typed interface over the
 * node's SynthesizeInteractive call that the gateway opened (synthesis.ts `interactive`, inside
 * the speech use case: speak.ts, output `session`). Text goes in by context; audio, errors and
 * each context's final message come out of `events()`, which also keeps the tally metering
 * records when the session ends: the characters spoken, plus those in synthesis when a context
 * was cancelled (barge-in), and the seconds of audio.
 */
import type { InteractiveResponse, StreamInfo, WordTiming } from '@tts/proto/synthesis';
import { ContextOutcome } from '@tts/proto/synthesis';
import { TtsError, isErrorCode, type InteractiveCall } from '@tts/common';

/** How a context ended. */
export type ContextEnd = 'completed' | 'cancelled' | 'failed';

/** What a session sends back, in order per context. */
export type SpeechSessionEvent =
  | {
      readonly kind: 'audio';
      readonly contextId: string;
      /** Encoded audio of the session's format; each context is its own stream (a WAV context starts with its header). */
      readonly audio: Buffer;
      /** The words this audio holds, seconds from the start of the context's audio (cumulative over the context). */
      readonly words: readonly WordTiming[];
    }
  | {
      readonly kind: 'final';
      readonly contextId: string;
      readonly outcome: ContextEnd;
      /** Characters (as sent) whose audio was all sent. */
      readonly charactersSpoken: number;
      /** Characters being synthesized when the context was cancelled or failed. */
      readonly charactersInSynthesis: number;
      /** Characters buffered and never synthesized. */
      readonly charactersDropped: number;
      readonly audioSeconds: number;
    }
  | {
      readonly kind: 'error';
      /** The context it concerns ('' for a message of the session's). */
      readonly contextId: string;
      readonly error: TtsError;
    };

/** What metering counts of a session. */
export interface SessionUsage {
  /** Characters spoken, plus those in synthesis when a context was cancelled or failed. */
  readonly characters: number;
  readonly audioSeconds: number;
}

const OUTCOMES: Readonly<Partial<Record<ContextOutcome, ContextEnd>>> = {
  [ContextOutcome.CONTEXT_OUTCOME_COMPLETED]: 'completed',
  [ContextOutcome.CONTEXT_OUTCOME_CANCELLED]: 'cancelled',
  [ContextOutcome.CONTEXT_OUTCOME_FAILED]: 'failed',
};

/** An open interactive session on one node (sticky for its life). */
export class SpeechSession {
  /** Encoding, sample rate, resolved voice and engine of every context. */
  readonly info: StreamInfo;
  readonly nodeId: string;
  /** Contexts the session may hold at once. */
  readonly maxContexts: number;
  /** Characters one context may hold not yet synthesized. */
  readonly maxBufferedChars: number;
  private characters = 0;
  private audioSeconds = 0;
  private iterated = false;

  constructor(private readonly call: InteractiveCall) {
    const s = call.started;
    this.info = s.info ?? { encoding: 0, sampleRate: 0, voice: '', engine: '', contentType: '' };
    this.nodeId = s.nodeId;
    this.maxContexts = s.maxContexts;
    this.maxBufferedChars = s.maxBufferedChars;
  }

  /** Text for a context (opens it when new); resolves once the transport takes more. */
  pushText(contextId: string, text: string): Promise<void> {
    return this.call.write({ message: { $case: 'text', value: { contextId, text } } });
  }

  /** Speaks what the context holds now, even mid-sentence. */
  flush(contextId: string): Promise<void> {
    return this.call.write({ message: { $case: 'flush', value: { contextId } } });
  }

  /** Barge-in: the context's audio stops at once and its final message (cancelled) follows. */
  cancel(contextId: string): Promise<void> {
    return this.call.write({ message: { $case: 'cancel', value: { contextId } } });
  }

  /** No more text for the context: the rest is spoken, then its final message. */
  end(contextId: string): Promise<void> {
    return this.call.write({ message: { $case: 'end', value: { contextId } } });
  }

  /** No more input at all: every open context ends; `events()` ends after their final messages. */
  close(): void {
    this.call.end();
  }

  /** Stops everything at once (the client went away): every context is cancelled. */
  abort(): void {
    this.call.cancel();
  }

  /** What metering counts so far (from the final messages `events()` has given). */
  usage(): SessionUsage {
    return { characters: this.characters, audioSeconds: this.audioSeconds };
  }

  /**
   * The session's events until it ends (after `close()`, once every context sent its final
   * message); throws the TtsError the session ended with (the node lost, draining past its grace).
   * Single consumer.
   */
  async *events(): AsyncGenerator<SpeechSessionEvent> {
    if (this.iterated) throw new TtsError('INTERNAL_ERROR', 'A session\'s events have one reader.');
    this.iterated = true;
    for await (const response of this.call.responses) {
      const event = this.eventOf(response);
      if (event) yield event;
    }
  }

  private eventOf(response: InteractiveResponse): SpeechSessionEvent | undefined {
    const m = response.message;
    switch (m?.$case) {
      case 'audio':
        return { kind: 'audio', contextId: m.value.contextId, audio: m.value.data, words: m.value.words };
      case 'error': {
        const code = isErrorCode(m.value.code) ? m.value.code : 'INTERNAL_ERROR';
        return { kind: 'error', contextId: m.value.contextId, error: new TtsError(code, m.value.message) };
      }
      case 'final': {
        const f = m.value;
        const audioSeconds = f.metrics?.audioSeconds ?? 0;
        this.characters += f.charactersSpoken + f.charactersInSynthesis;
        this.audioSeconds += audioSeconds;
        return {
          kind: 'final',
          contextId: f.contextId,
          outcome: OUTCOMES[f.outcome] ?? 'failed',
          charactersSpoken: f.charactersSpoken,
          charactersInSynthesis: f.charactersInSynthesis,
          charactersDropped: f.charactersDropped,
          audioSeconds,
        };
      }
      default:
        return undefined;
    }
  }
}
