/** Checks every engine applies to an `EngineInput` before starting work. */
import { TtsError } from '@tts/common';
import type { EngineInput, SpeedRange } from '../engine.js';

/** Throws `TTS_CANCELLED` when `signal` is already aborted. */
export function throwIfCancelled(signal: AbortSignal | undefined, engine: string): void {
  if (signal?.aborted) throw new TtsError('TTS_CANCELLED', `${engine}: the request was cancelled.`);
}

/**
 * The voice name of `voiceId` ("<engine>:<name>", compared case-insensitively) when `isKnown`
 * accepts it; throws `TTS_VOICE_NOT_FOUND` otherwise.
 */
export function voiceNameOf(voiceId: string, engine: string, isKnown: (name: string) => boolean): string {
  const prefix = `${engine}:`;
  const name = voiceId.toLowerCase().startsWith(prefix) ? voiceId.slice(prefix.length).toLowerCase() : undefined;
  if (name === undefined || !isKnown(name)) {
    throw new TtsError('TTS_VOICE_NOT_FOUND', `Voice "${voiceId}" does not exist in engine "${engine}".`, { loc: ['body', 'voice'] });
  }
  return name;
}

/**
 * The speed factor the engine applies itself for `input`: `input.speed` when it lies in `range`,
 * otherwise 1 (the node time-stretches). Throws `TTS_SPEED_OUT_OF_RANGE` for a non-positive or
 * non-finite speed and `TTS_TEXT_EMPTY` for blank text.
 */
export function checkedInput(input: EngineInput, range: SpeedRange | null): { nativeSpeed: number; speedApplied: boolean } {
  if (!Number.isFinite(input.speed) || input.speed <= 0) {
    throw new TtsError('TTS_SPEED_OUT_OF_RANGE', `Speed ${input.speed} is not a positive number.`, { loc: ['body', 'speed'] });
  }
  if (input.text.trim() === '') throw new TtsError('TTS_TEXT_EMPTY');
  if (input.speed === 1) return { nativeSpeed: 1, speedApplied: true };
  if (range && input.speed >= range.min && input.speed <= range.max) return { nativeSpeed: input.speed, speedApplied: true };
  return { nativeSpeed: 1, speedApplied: false };
}
