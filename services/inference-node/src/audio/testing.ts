/**
 * Test support (not for production code): test signals, simple measurements on them, WAV files made
 * by ffmpeg, and a look at this process's ffmpeg children (Linux /proc).
 */
import { readFileSync, readdirSync } from 'node:fs';
import type { PcmAudio } from './pcm.js';
import { FFMPEG, FFMPEG_QUIET, runToBuffer } from './media-process.js';

/** A sine tone of `freq` Hz, `sec` seconds long, peak `amplitude`. */
export function sine(freq: number, sampleRate: number, sec: number, amplitude = 0.5): PcmAudio {
  const samples = new Float32Array(Math.round(sampleRate * sec));
  for (let i = 0; i < samples.length; i++) samples[i] = amplitude * Math.sin((2 * Math.PI * freq * i) / sampleRate);
  return { samples, sampleRate };
}

/**
 * Amplitude of the `freq` Hz component over the middle 80 % of the clip (a single-bin DFT; edges are
 * left out so onset transients do not count).
 */
export function toneAmplitude(audio: PcmAudio, freq: number): number {
  const from = Math.floor(audio.samples.length * 0.1);
  const to = Math.floor(audio.samples.length * 0.9);
  let re = 0;
  let im = 0;
  for (let i = from; i < to; i++) {
    const phase = (2 * Math.PI * freq * i) / audio.sampleRate;
    re += audio.samples[i]! * Math.cos(phase);
    im += audio.samples[i]! * Math.sin(phase);
  }
  return (2 * Math.hypot(re, im)) / (to - from);
}

/** Sign changes per second over the middle 80 % of the clip: twice the frequency of a pure tone. */
export function zeroCrossingRate(audio: PcmAudio): number {
  const from = Math.floor(audio.samples.length * 0.1);
  const to = Math.floor(audio.samples.length * 0.9);
  let crossings = 0;
  for (let i = from + 1; i < to; i++) if (audio.samples[i - 1]! < 0 !== audio.samples[i]! < 0) crossings++;
  return (crossings * audio.sampleRate) / (to - from);
}

/** Runs ffmpeg with a lavfi source and output options, returning stdout (e.g. a WAV file). */
export function ffmpegGenerate(lavfiSource: string, outputArgs: readonly string[]): Promise<Buffer> {
  return runToBuffer(FFMPEG, [...FFMPEG_QUIET, '-f', 'lavfi', '-i', lavfiSource, ...outputArgs, 'pipe:1'], new Uint8Array(0));
}

/** ffmpeg processes whose parent is this process, running or zombie, with their /proc state letter. */
export function ffmpegChildren(): { pid: number; state: string }[] {
  const found: { pid: number; state: string }[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited while listing
    }
    // Format: pid (comm) state ppid ...; comm may contain spaces, so split after the last ')'.
    const close = stat.lastIndexOf(')');
    const comm = stat.slice(stat.indexOf('(') + 1, close);
    const [state, ppid] = stat.slice(close + 2).split(' ');
    if (comm === FFMPEG && Number(ppid) === process.pid) found.push({ pid: Number(entry), state: state ?? '?' });
  }
  return found;
}

export { OPUS_COMPLEXITY, openOggOpusCodec } from './opus-codec.js';
export { spectralDistance } from './spectral-distance.js';
export { MP3_QUALITY, openLameCodec } from './lame-codec.js';
export type { CodecSettings, NativeCodec } from './native-codec.js';
export { openAacCodec } from './aac-codec.js';
