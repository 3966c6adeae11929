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

/** A 220 Hz tone as a 16 kHz mono 16-bit WAV: a small decodable upload. */
export function toneWav(seconds = 4, amplitude = 8000): Buffer {
  const rate = 16_000;
  const samples = Math.round(rate * seconds);
  const wav = Buffer.alloc(44 + samples * 2);
  wav.write('RIFF', 0);
  wav.writeUInt32LE(36 + samples * 2, 4);
  wav.write('WAVEfmt ', 8);
  wav.writeUInt32LE(16, 16);
  wav.writeUInt16LE(1, 20);
  wav.writeUInt16LE(1, 22);
  wav.writeUInt32LE(rate, 24);
  wav.writeUInt32LE(rate * 2, 28);
  wav.writeUInt16LE(2, 32);
  wav.writeUInt16LE(16, 34);
  wav.write('data', 36);
  wav.writeUInt32LE(samples * 2, 40);
  for (let i = 0; i < samples; i++) wav.writeInt16LE(Math.round(amplitude * Math.sin((2 * Math.PI * 220 * i) / rate)), 44 + i * 2);
  return wav;
}
