/** Audio assertions on real decoded audio. */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
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

export interface WavSpec {
  readonly rate?: number;
  readonly channels?: number;
  readonly bits?: number;
  readonly tag?: number;
  /** The data chunk's declared size (default: the bytes that follow). */
  readonly declaredData?: number;
  readonly dataBytes?: number;
  readonly riff?: 'RIFF' | 'RF64';
  /** RF64's 64-bit data size. */
  readonly ds64Data?: bigint;
}

/** A WAV file whose header says what `spec` says, whatever the bytes that follow. */
export function craftedWav(spec: WavSpec): Buffer {
  const rate = spec.rate ?? 16000;
  const channels = spec.channels ?? 1;
  const bits = spec.bits ?? 16;
  const dataBytes = spec.dataBytes ?? 10_000;
  const chunks: Buffer[] = [];
  if (spec.ds64Data !== undefined) {
    const ds64 = Buffer.alloc(8 + 28);
    ds64.write('ds64', 0);
    ds64.writeUInt32LE(28, 4);
    ds64.writeBigUInt64LE(spec.ds64Data, 16);
    chunks.push(ds64);
  }
  const fmt = Buffer.alloc(8 + 16);
  fmt.write('fmt ', 0);
  fmt.writeUInt32LE(16, 4);
  fmt.writeUInt16LE(spec.tag ?? 1, 8);
  fmt.writeUInt16LE(channels, 10);
  fmt.writeUInt32LE(rate >>> 0, 12);
  fmt.writeUInt32LE(Math.min(0xffffffff, Math.floor((rate * channels * bits) / 8)) >>> 0, 16);
  fmt.writeUInt16LE(Math.min(0xffff, (channels * Math.ceil(bits / 8)) & 0xffff), 20);
  fmt.writeUInt16LE(bits, 22);
  chunks.push(fmt);
  const data = Buffer.alloc(8 + dataBytes);
  data.write('data', 0);
  data.writeUInt32LE(spec.declaredData ?? dataBytes, 4);
  for (let i = 8; i < data.length; i++) data[i] = (i * 37) & 0xff;
  chunks.push(data);
  const body = Buffer.concat(chunks);
  const head = Buffer.alloc(12);
  head.write(spec.riff ?? 'RIFF', 0);
  head.writeUInt32LE(spec.riff === 'RF64' ? 0xffffffff : 4 + body.length, 4);
  head.write('WAVE', 8);
  return Buffer.concat([head, body]);
}

/** Headerless audio decoded by ffmpeg's own demuxer (`s16le`, `mulaw`, `alaw`) at `rate`, mono float samples. */
export function decodeRawAudio(bytes: Uint8Array, demuxer: 's16le' | 'mulaw' | 'alaw', rate: number): Promise<Float32Array> {
  return new Promise((resolve, reject) => {
    const ffmpeg = spawn('ffmpeg', ['-hide_banner', '-nostdin', '-loglevel', 'error', '-f', demuxer, '-ar', String(rate), '-ac', '1', '-i', 'pipe:0', '-f', 'f32le', 'pipe:1']);
    const out: Buffer[] = [];
    let stderr = '';
    ffmpeg.stdout.on('data', (c: Buffer) => out.push(c));
    ffmpeg.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    ffmpeg.on('error', reject);
    ffmpeg.on('close', (code) => {
      if (code !== 0) return reject(new Error(`ffmpeg -f ${demuxer} exited ${String(code)}: ${stderr}`));
      const all = Buffer.concat(out);
      resolve(new Float32Array(all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength)));
    });
    ffmpeg.stdin.end(bytes);
  });
}
