/** Audio assertions on real decoded audio. */
import assert from 'node:assert/strict';
import { decodeWithFfmpeg, probeAudio, rms, peak } from '@tts/inference-node/testing';

/** Facts about an encoded clip, from ffprobe and a real decode. */
export interface ClipFacts {
  readonly codec: string;
  readonly formatName: string;
  readonly sampleRate: number;
  readonly channels: number;
  readonly durationSec: number;
  readonly rms: number;
  readonly peak: number;
}

/** Probes and decodes `bytes`. */
export async function inspectClip(bytes: Uint8Array): Promise<ClipFacts> {
  const probe = await probeAudio(bytes);
  const pcm = await decodeWithFfmpeg(bytes);
  return { ...probe, durationSec: pcm.samples.length / pcm.sampleRate, rms: rms(pcm.samples), peak: peak(pcm.samples) };
}

/** Asserts the clip is speech-like: duration within [min, max] s, audible, not clipped. */
export function assertSpeech(c: ClipFacts, minSec: number, maxSec: number): void {
  assert.ok(c.durationSec >= minSec && c.durationSec <= maxSec, `duration ${c.durationSec.toFixed(2)} s outside [${minSec}, ${maxSec}]`);
  assert.ok(c.rms > 0.01, `RMS ${c.rms.toFixed(4)} is near silence`);
  assert.ok(c.peak < 0.999, `peak ${c.peak.toFixed(4)} suggests clipping`);
  assert.equal(c.channels, 1);
}
