/**
 * mp3 quality (and the aac path's cost): what LAME's quality setting costs and buys on the
 * platform's speech, at the rates and bit rates the node uses by default (flite slt at 16 kHz,
 * espeak-ng at 24 kHz; defaultBitrateKbps), the method of opus-complexity.ts. For each LAME quality:
 * CPU time per second of audio (the in-process libmp3lame session as the node runs it), the
 * log-spectral distance of the audio ffmpeg decodes to the input (0-7.5 kHz, dB, after LAME's
 * delay), and the word error rate of the decoded audio through the Vosk recognizer. For aac: the
 * in-process encoder (aac_coder fast) the same way, and the other settings of FFmpeg's aac encoder
 * (PNS, TNS off; twoloop for scale) through the ffmpeg command, whose CPU per second of audio is its
 * `-benchmark` user+system time on all sentences minus that of the same command writing raw PCM.
 *   npm run bench mp3-quality
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { defaultBitrateKbps, encodePcm16le, MP3_QUALITY, openAacCodec, openLameCodec, type CodecSettings, type NativeCodec } from '@tts/inference-node/testing';
import { CodecQualityBench, VOICES, logSpectralDistance, run, writeResults, type Voice, type VoiceInputs } from './codec-quality.js';
import { r } from './support.js';

const QUALITIES = [...new Set([MP3_QUALITY, 3, 2, 5, 7, 9])];
/** FFmpeg aac encoder options tried besides the node's (`-aac_coder fast`). */
const AAC_VARIANTS: { name: string; args: string[] }[] = [
  { name: 'fast (the node\'s)', args: [] },
  { name: 'fast, PNS off', args: ['-aac_pns', '0'] },
  { name: 'fast, TNS off', args: ['-aac_tns', '0'] },
  { name: 'fast, PNS and TNS off', args: ['-aac_pns', '0', '-aac_tns', '0'] },
  { name: 'twoloop (FFmpeg\'s default)', args: ['-aac_coder', 'twoloop'] },
];
/** Rounds of the CPU measurement: each encodes every sentence once with every in-process setting in turn, so drifting load falls on all alike. */
const ROUNDS = 6;

const bench = await CodecQualityBench.open('mp3');
const lame = openLameCodec();
const aac = openAacCodec();

/** The lag (samples, 0-2400) at which `decoded` best matches `input` (LAME's and AAC's delays are not marked in mp3/ADTS). */
function lagOf(input: Float32Array, decoded: Float32Array): number {
  let best = 0;
  let bestDot = -Infinity;
  const n = Math.min(input.length, decoded.length - 2400, 16000);
  for (let lag = 0; lag <= 2400; lag++) {
    let dot = 0;
    for (let i = 0; i < n; i++) dot += input[i]! * decoded[i + lag]!;
    if (dot > bestDot) [best, bestDot] = [lag, dot];
  }
  return best;
}

/** Mean LSD and WER of encoded sentences (`encode(i)`) decoded from `ext`. */
async function quality(v: Voice, vi: VoiceInputs, ext: string, label: string, encode: (i: number) => Promise<Buffer> | Buffer): Promise<{ lag: number; lsd_db: number; wer_pct: number }> {
  let lsd = 0;
  let errors = 0;
  let lag = -1;
  for (const [i, x] of vi.inputs.entries()) {
    const decoded = await bench.decode(await encode(i), ext, v.rate, `${label}-${i}`);
    if (lag < 0) lag = lagOf(x, decoded);
    const aligned = decoded.subarray(lag);
    lsd += logSpectralDistance(x, aligned, v.rate);
    errors += await bench.wordErrors(aligned, v.rate, i, `${label}-${i}`);
  }
  return { lag, lsd_db: r(lsd / vi.inputs.length, 3), wer_pct: r((100 * errors) / vi.refWords, 1) };
}

/** One whole-sentence session of an in-process codec. */
type EncodeOnce = (x: Float32Array) => Buffer;

/** CPU ms per second of audio of each `encoders`' sessions over every sentence, interleaved for ROUNDS rounds after one warm-up round, and the kbit/s. */
function sessionCosts(vi: VoiceInputs, encoders: readonly EncodeOnce[]): { cpu_ms_per_audio_sec: number; kbps: number }[] {
  const cpuUs = encoders.map(() => 0);
  const bytes = encoders.map(() => 0);
  for (let round = 0; round <= ROUNDS; round++) {
    for (const [e, encodeOnce] of encoders.entries()) {
      const cpu = process.cpuUsage();
      let n = 0;
      for (const x of vi.inputs) n += encodeOnce(x).length;
      const used = process.cpuUsage(cpu);
      if (round === 0) continue; // warm-up
      cpuUs[e]! += used.user + used.system;
      bytes[e]! += n;
    }
  }
  return encoders.map((_, e) => ({ cpu_ms_per_audio_sec: r(cpuUs[e]! / 1000 / (ROUNDS * vi.audioSec)), kbps: r((bytes[e]! * 8) / 1000 / (ROUNDS * vi.audioSec), 1) }));
}

/** Whole-sentence sessions of `codec` with `settings`. */
function sessions(codec: NativeCodec, settings: CodecSettings): EncodeOnce {
  return (x) => {
    const s = codec.open(settings);
    try {
      return Buffer.concat([s.encode(x), s.finish()]);
    } finally {
      s.close();
    }
  };
}

/** user+system CPU ms ffmpeg reports (-benchmark) for raw s16le `file` at `rate` through `codecArgs`. */
async function ffmpegCpuMs(file: string, rate: number, codecArgs: string[]): Promise<number> {
  const { stderr } = await run('ffmpeg', ['-hide_banner', '-nostats', '-benchmark', '-f', 's16le', '-ar', String(rate), '-ac', '1', '-i', file, ...codecArgs, '-y', '/dev/null']);
  const m = /utime=([\d.]+)s stime=([\d.]+)s/.exec(stderr);
  if (m === null) throw new Error(`no -benchmark line in ${stderr}`);
  return (Number(m[1]) + Number(m[2])) * 1000;
}

const results: Record<string, unknown>[] = [];
try {
  for (const v of VOICES) {
    const vi = await bench.inputs(v);
    const mp3Kbps = defaultBitrateKbps('mp3', v.rate);
    const aacKbps = defaultBitrateKbps('aac', v.rate);
    const row = { voice: v.voice, rate: v.rate, audio_sec: r(vi.audioSec), input_wer_pct: vi.inputWerPct, mp3_kbps: mp3Kbps, mp3: [] as unknown[], aac_kbps: aacKbps, aac: [] as unknown[] };
    const mp3Once = QUALITIES.map((q) => sessions(lame, { sampleRate: v.rate, bitrateKbps: mp3Kbps, streaming: false, quality: q }));
    const aacOnce = sessions(aac, { sampleRate: v.rate, bitrateKbps: aacKbps, streaming: false });
    const costs = sessionCosts(vi, [...mp3Once, aacOnce]);
    for (const [k, q] of QUALITIES.entries()) {
      const c = { quality: q, ...costs[k]!, ...(await quality(v, vi, 'mp3', `q${q}`, (i) => mp3Once[k]!(vi.inputs[i]!))) };
      row.mp3.push(c);
      console.log(JSON.stringify({ voice: v.voice, format: 'mp3', ...c }));
    }
    const inProcess = { setting: 'fast, in process', ...costs[QUALITIES.length]!, ...(await quality(v, vi, 'aac', 'aac-native', (i) => aacOnce(vi.inputs[i]!))) };
    row.aac.push(inProcess);
    console.log(JSON.stringify({ voice: v.voice, format: 'aac', ...inProcess }));
    // All sentences ROUNDS times in one raw file, so ffmpeg's start-up is a small part, and subtracted.
    const all = path.join(bench.dir, 'all.s16');
    writeFileSync(all, Buffer.concat(Array.from({ length: ROUNDS }, () => vi.inputs.map((x) => encodePcm16le(x))).flat()));
    const baseline = await ffmpegCpuMs(all, v.rate, ['-c:a', 'pcm_s16le', '-f', 's16le']);
    for (const variant of AAC_VARIANTS) {
      const args = ['-c:a', 'aac', '-aac_coder', 'fast', '-b:a', `${aacKbps}k`, ...variant.args, '-f', 'adts'];
      const cpu = (await ffmpegCpuMs(all, v.rate, args)) - baseline;
      const label = `aac-${AAC_VARIANTS.indexOf(variant)}`;
      const c = {
        setting: `${variant.name}, ffmpeg`,
        cpu_ms_per_audio_sec: r(cpu / (ROUNDS * vi.audioSec)),
        ...(await quality(v, vi, 'aac', label, async (i) => {
          const file = path.join(bench.dir, `${label}-${i}.s16`);
          writeFileSync(file, encodePcm16le(vi.inputs[i]!));
          const { stdout } = await run('ffmpeg', ['-v', 'error', '-f', 's16le', '-ar', String(v.rate), '-ac', '1', '-i', file, ...args, '-'], { encoding: 'buffer', maxBuffer: 1 << 28 });
          return stdout;
        })),
      };
      row.aac.push(c);
      console.log(JSON.stringify({ voice: v.voice, format: 'aac', ...c }));
    }
    results.push(row);
  }
} finally {
  await bench.close();
}
writeResults('mp3-quality', { default_mp3_quality: MP3_QUALITY, results });
