import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { TtsError, setLogSink } from '@tts/common';
import { isTtsError } from '@tts/common/testing';
import { createEncoder, encodeAudio, type AudioEncoder, type EncoderImplementation } from './encode.js';
import type { AudioFormat } from '@tts/common/audio';
import { assertKnownLayout, openAacCodec } from './aac-codec.js';
import { openFlacCodec } from './flac-codec.js';
import { MP3_QUALITY, openLameCodec } from './lame-codec.js';
import { FFMPEG, FFPROBE, MediaProcess, runToBuffer } from './media-process.js';
import { OPUS_COMPLEXITY, openOggOpusCodec } from './opus-codec.js';
import { decodePcm16le, encodePcm16le, type PcmAudio } from './pcm.js';
import { decodeWithFfmpeg, probeAudio } from './probe.js';
import { ffmpegChildren, sine, toneAmplitude, zeroCrossingRate } from './testing.js';
import { decodeWav } from './wav.js';
import { NativeEncoder, nativeCodec } from './native-encoder.js';
import { defaultBitrateKbps } from './bitrate.js';

const logLines: string[] = [];
setLogSink((line) => logLines.push(line));

const dB = (ratio: number): number => 20 * Math.log10(ratio);

/** A 440 Hz tone at amplitude 0.5 (not a power-of-two length, so codecs must pad). */
const tone = (sampleRate: number, sec = 2.01): PcmAudio => sine(440, sampleRate, sec, 0.5);

/** A voiced, speech-like signal: a gliding 100-200 Hz fundamental with harmonics up to 0.4 × rate, a 4 Hz syllable envelope and a little noise. */
function voiceLike(sampleRate: number, sec: number): PcmAudio {
  const samples = new Float32Array(Math.round(sampleRate * sec));
  let phase = 0;
  let seed = 7;
  for (let i = 0; i < samples.length; i++) {
    const t = i / sampleRate;
    const f0 = 150 + 50 * Math.sin(2 * Math.PI * 0.7 * t);
    phase += (2 * Math.PI * f0) / sampleRate;
    let v = 0;
    for (let k = 1; k <= 20 && k * f0 < 0.4 * sampleRate; k++) v += Math.sin(k * phase) / k;
    seed = (seed * 1103515245 + 12345) >>> 0;
    samples[i] = 0.3 * (0.6 + 0.4 * Math.sin(2 * Math.PI * 4 * t)) * v + 0.01 * (seed / 2 ** 32 - 0.5);
  }
  return { samples, sampleRate };
}

/** Collects an encoder's output, recording when each chunk arrived. */
function collect(encoder: AudioEncoder): { chunks: { at: number; bytes: Buffer }[]; done: Promise<Buffer> } {
  const chunks: { at: number; bytes: Buffer }[] = [];
  const done = (async () => {
    for await (const bytes of encoder) chunks.push({ at: performance.now(), bytes });
    return Buffer.concat(chunks.map((c) => c.bytes));
  })();
  return { chunks, done };
}

/** Ogg pages with their serial number and checksum zeroed (libogg's serial is random per stream); other formats as they are. */
function comparable(bytes: Buffer, format: AudioFormat): Buffer {
  if (format !== 'opus') return bytes;
  const out = Buffer.from(bytes);
  for (let at = 0; at < out.length; ) {
    assert.equal(out.toString('latin1', at, at + 4), 'OggS', `an Ogg page at ${at}`);
    const segments = out[at + 26]!;
    let length = 27 + segments;
    for (let i = 0; i < segments; i++) length += out[at + 27 + i]!;
    out.fill(0, at + 14, at + 18);
    out.fill(0, at + 22, at + 26);
    at += length;
  }
  return out;
}

/** `input` through a streaming encoder with the default settings, in one write. */
async function encodeStreamed(input: PcmAudio, format: AudioFormat): Promise<Buffer> {
  const encoder = createEncoder(format, input.sampleRate, { streaming: true });
  const { done } = collect(encoder);
  await encoder.write(input.samples);
  await encoder.end();
  return done;
}

async function waitFor(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

/** The input sample rate an Ogg Opus stream's OpusHead declares. */
function opusInputRate(bytes: Buffer): number {
  const at = bytes.indexOf('OpusHead');
  assert.ok(at >= 0, 'OpusHead present');
  return bytes.readUInt32LE(at + 12);
}

/**
 * Decodes with ffmpeg at `-v error` (mono float at `sampleRate`, else the stream's rate) and asserts
 * it printed nothing: the bytes decode cleanly.
 */
async function decodeStrictly(bytes: Buffer, sampleRate?: number): Promise<Float32Array> {
  const proc = new MediaProcess(FFMPEG, ['-nostdin', '-v', 'error', '-i', 'pipe:0', '-ac', '1', ...(sampleRate === undefined ? [] : ['-ar', String(sampleRate)]), '-f', 'f32le', 'pipe:1']);
  const out: Buffer[] = [];
  proc.child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
  proc.child.stdin.end(bytes);
  const exit = await proc.exited;
  assert.equal(exit.code, 0, proc.stderr);
  assert.equal(proc.stderr, '', 'ffmpeg -v error prints nothing');
  const all = Buffer.concat(out);
  return new Float32Array(all.buffer.slice(all.byteOffset, all.byteOffset + all.length));
}

/** Signal-to-noise ratio (dB) of `decoded` against `input` at the lag in [0, maxLag] that fits best, and that lag. */
function alignedSnr(input: Float32Array, decoded: Float32Array, maxLag: number): { snrDb: number; lag: number } {
  let best = { snrDb: -Infinity, lag: 0 };
  for (let lag = 0; lag <= maxLag; lag++) {
    let signal = 0;
    let noise = 0;
    const n = Math.min(input.length, decoded.length - lag);
    for (let i = 0; i < n; i++) {
      signal += input[i]! ** 2;
      noise += (input[i]! - decoded[i + lag]!) ** 2;
    }
    const snrDb = 10 * Math.log10(signal / noise);
    if (snrDb > best.snrDb) best = { snrDb, lag };
  }
  return best;
}

/** One Ogg page, as RFC 3533 lays it out. */
interface OggPage {
  readonly flags: number;
  readonly granule: bigint;
  readonly packets: Buffer[];
}

/** Splits a whole Ogg stream into pages (asserting it is nothing but complete pages). */
function oggPages(bytes: Buffer): OggPage[] {
  const pages: OggPage[] = [];
  let partial: Buffer[] = [];
  for (let at = 0; at < bytes.length; ) {
    assert.equal(bytes.toString('latin1', at, at + 4), 'OggS', `page at byte ${at}`);
    const segments = bytes[at + 26]!;
    const lacing = bytes.subarray(at + 27, at + 27 + segments);
    let body = at + 27 + segments;
    const packets: Buffer[] = [];
    for (const size of lacing) {
      partial.push(bytes.subarray(body, body + size));
      body += size;
      if (size < 255) {
        packets.push(Buffer.concat(partial));
        partial = [];
      }
    }
    assert.ok(body <= bytes.length, 'the last page is complete');
    pages.push({ flags: bytes[at + 5]!, granule: bytes.readBigInt64LE(at + 6), packets });
    at = body;
  }
  return pages;
}

const IMPLEMENTATIONS: readonly EncoderImplementation[] = ['native', 'ffmpeg'];

describe('encodeAudio', () => {
  // Lossy codecs add encoder delay/padding the container cannot mark for removal (mp3 without a LAME
  // tag, ADTS); Ogg Opus marks it (pre-skip, end trim), flac and wav have none.
  const cases: { format: AudioFormat; rate: number; codec: string; container: string; probedRate: number; padSec: number }[] = [
    { format: 'mp3', rate: 24000, codec: 'mp3', container: 'mp3', probedRate: 24000, padSec: 0.1 },
    { format: 'mp3', rate: 44100, codec: 'mp3', container: 'mp3', probedRate: 44100, padSec: 0.1 },
    { format: 'mp3', rate: 8000, codec: 'mp3', container: 'mp3', probedRate: 8000, padSec: 0.3 },
    { format: 'opus', rate: 24000, codec: 'opus', container: 'ogg', probedRate: 48000, padSec: 0 },
    { format: 'opus', rate: 48000, codec: 'opus', container: 'ogg', probedRate: 48000, padSec: 0 },
    { format: 'opus', rate: 16000, codec: 'opus', container: 'ogg', probedRate: 48000, padSec: 0 },
    { format: 'aac', rate: 24000, codec: 'aac', container: 'aac', probedRate: 24000, padSec: 0.15 },
    { format: 'aac', rate: 16000, codec: 'aac', container: 'aac', probedRate: 16000, padSec: 0.2 },
    { format: 'flac', rate: 24000, codec: 'flac', container: 'flac', probedRate: 24000, padSec: 0 },
    { format: 'flac', rate: 17000, codec: 'flac', container: 'flac', probedRate: 17000, padSec: 0 },
    { format: 'wav', rate: 22050, codec: 'pcm_s16le', container: 'wav', probedRate: 22050, padSec: 0 },
  ];

  for (const c of cases) {
    // mp3, opus, flac and aac have two implementations (wav one): both must give the same facts.
    for (const implementation of c.format === 'wav' ? (['native'] as const) : IMPLEMENTATIONS) {
      it(`${c.format} at ${c.rate} Hz (${implementation}): ffprobe sees ${c.codec} in ${c.container} with the right rate and duration, and it decodes to the tone`, async () => {
        const input = tone(c.rate);
        const bytes = await encodeAudio(input, c.format, undefined, { implementation });

        const probe = await probeAudio(bytes);
        assert.equal(probe.codec, c.codec);
        assert.equal(probe.formatName, c.container);
        assert.equal(probe.sampleRate, c.probedRate);
        assert.equal(probe.channels, 1);
        const expected = input.samples.length / c.rate;
        const error = probe.durationSec - expected;
        assert.ok(error >= -0.05 * expected && error <= 0.05 * expected + c.padSec, `duration ${probe.durationSec} s, expected ${expected} s (+${c.padSec} s padding)`);
        if (c.format === 'opus') assert.equal(opusInputRate(bytes), c.rate, 'OpusHead input rate');

        const decoded = await decodeWithFfmpeg(bytes);
        assert.ok(Math.abs(dB(toneAmplitude(decoded, 440) / 0.5)) < 1, `tone level ${dB(toneAmplitude(decoded, 440) / 0.5)} dB`);
        assert.ok(Math.abs(zeroCrossingRate(decoded) - 880) < 0.02 * 880, `zero crossings ${zeroCrossingRate(decoded)}/s`);
      });
    }
  }

  it('flac and wav are lossless: they decode to exactly the 16-bit input', async () => {
    const input = tone(24000, 0.7);
    const quantized = decodePcm16le(encodePcm16le(input.samples));
    for (const [format, implementation] of [['flac', 'native'], ['flac', 'ffmpeg'], ['wav', 'native']] as const) {
      const decoded = await decodeWithFfmpeg(await encodeAudio(input, format, undefined, { implementation }));
      assert.equal(decoded.sampleRate, 24000);
      assert.deepEqual(decoded.samples, quantized, `${format} (${implementation})`);
    }
  });

  it('pcm is raw 16-bit little-endian at the clip rate', async () => {
    const input = tone(24000, 0.1);
    const bytes = await encodeAudio(input, 'pcm');
    assert.deepEqual(bytes, encodePcm16le(input.samples));
  });

  it('resamples to the nearest rate the format takes (22050 Hz → 24000 Hz for opus)', async () => {
    const bytes = await encodeAudio(tone(22050, 1), 'opus');
    assert.equal(opusInputRate(bytes), 24000);
    const probe = await probeAudio(bytes);
    assert.ok(Math.abs(probe.durationSec - 1) < 0.05, `duration ${probe.durationSec}`);
  });

  it('rejects with TTS_CANCELLED for an aborted signal', async () => {
    await assert.rejects(encodeAudio(tone(24000), 'mp3', AbortSignal.abort()), isTtsError('TTS_CANCELLED'));
  });
});

describe("in-process encoders (libmp3lame, libopus + libogg, libFLAC, libavcodec's aac)", () => {
  it('mp3: the same bytes as the ffmpeg path, frame for frame (same library, same settings, same 16-bit input)', async () => {
    for (const rate of [8000, 24000, 44100]) {
      const input = voiceLike(rate, 1.37);
      const native = await encodeAudio(input, 'mp3', undefined, { implementation: 'native' });
      const ffmpeg = await encodeAudio(input, 'mp3', undefined, { implementation: 'ffmpeg' });
      assert.ok(native.length > 1000);
      assert.ok(native.equals(ffmpeg), `${rate} Hz: ${native.length} vs ${ffmpeg.length} bytes`);
    }
  });

  it('mp3 quality: both paths take it and still give the same bytes at other LAME levels; it reaches LAME; 0-9 only', async () => {
    for (const rate of [16000, 24000]) {
      const input = voiceLike(rate, 1.37);
      const standard = await encodeAudio(input, 'mp3', undefined, { implementation: 'native' });
      for (const quality of [0, 2, 9].filter((q) => q !== MP3_QUALITY)) {
        const native = await encodeAudio(input, 'mp3', undefined, { implementation: 'native', mp3Quality: quality });
        const ffmpeg = await encodeAudio(input, 'mp3', undefined, { implementation: 'ffmpeg', mp3Quality: quality });
        assert.ok(native.equals(ffmpeg), `${rate} Hz, quality ${quality}: ${native.length} vs ${ffmpeg.length} bytes`);
        assert.ok(!native.equals(standard), `${rate} Hz: quality ${quality} gives other frames than ${MP3_QUALITY}`);
      }
    }
    const codec = openLameCodec();
    for (const quality of [10, -1, 2.5]) assert.throws(() => codec.open({ sampleRate: 16000, bitrateKbps: 96, streaming: false, quality }), new RegExp(`LAME quality ${quality}`));
  });

  // Requested bit rates are the defaults (defaultBitrateKbps). mp3 is CBR: bytes over the decoded
  // duration give it exactly; Opus is VBR (as ffmpeg ran it), so it follows the signal around the
  // target, and must match the ffmpeg path's size. The SNR is the waveform's, after the codec's delay.
  const cases: { format: 'mp3' | 'opus' | 'flac'; rate: number; kbps: number; minSnrDb: number }[] = [
    { format: 'mp3', rate: 8000, kbps: 48, minSnrDb: 20 },
    { format: 'mp3', rate: 24000, kbps: 96, minSnrDb: 20 },
    { format: 'mp3', rate: 44100, kbps: 128, minSnrDb: 20 },
    { format: 'opus', rate: 8000, kbps: 32, minSnrDb: 15 },
    { format: 'opus', rate: 16000, kbps: 32, minSnrDb: 15 },
    { format: 'opus', rate: 24000, kbps: 64, minSnrDb: 20 },
    { format: 'opus', rate: 48000, kbps: 64, minSnrDb: 20 },
    { format: 'flac', rate: 16000, kbps: 0, minSnrDb: 80 },
    { format: 'flac', rate: 44100, kbps: 0, minSnrDb: 80 },
  ];
  for (const c of cases) {
    it(`${c.format} at ${c.rate} Hz decodes cleanly to the input: codec, rate, channels, length, bit rate, waveform`, async (t) => {
      const input = voiceLike(c.rate, 3);
      const bytes = await encodeAudio(input, c.format, undefined, { implementation: 'native' });
      const probe = await probeAudio(bytes);
      assert.equal(probe.codec, c.format);
      assert.equal(probe.sampleRate, c.format === 'opus' ? 48000 : c.rate);
      assert.equal(probe.channels, 1);

      const atStreamRate = await decodeStrictly(bytes);
      const decoded = c.format === 'opus' ? await decodeStrictly(bytes, c.rate) : atStreamRate;
      const n = input.samples.length;
      let maxLag = 0;
      if (c.format === 'mp3') {
        // No LAME tag: the decoder keeps LAME's 1105-sample delay and the last frame's padding.
        const frame = c.rate >= 32000 ? 1152 : 576;
        const padding = atStreamRate.length - n - 1105;
        assert.ok(padding >= 0 && padding < frame, `decoded ${atStreamRate.length} samples for ${n}: padding ${padding} not within one ${frame}-sample frame`);
        const kbps = (bytes.length * 8) / (atStreamRate.length / c.rate) / 1000;
        t.diagnostic(`mp3 ${c.rate} Hz: ${kbps.toFixed(2)} kbit/s`);
        assert.ok(Math.abs(kbps - c.kbps) < 0.02 * c.kbps, `${kbps} kbit/s for ${c.kbps}`);
        maxLag = 1105 + frame;
      } else if (c.format === 'opus') {
        // Pre-skip and end trimming: exactly the input's length at 48 kHz.
        assert.equal(atStreamRate.length, (n * 48000) / c.rate);
        const kbps = (bytes.length * 8) / (n / c.rate) / 1000;
        const viaFfmpeg = await encodeAudio(input, 'opus', undefined, { implementation: 'ffmpeg' });
        t.diagnostic(`opus ${c.rate} Hz: ${kbps.toFixed(2)} kbit/s (ffmpeg path ${((viaFfmpeg.length * 8) / (n / c.rate) / 1000).toFixed(2)})`);
        assert.ok(kbps > 0.6 * c.kbps && kbps < 1.5 * c.kbps, `${kbps} kbit/s for ${c.kbps} (VBR)`);
        assert.ok(Math.abs(bytes.length - viaFfmpeg.length) < 0.03 * viaFfmpeg.length, `${bytes.length} bytes vs ${viaFfmpeg.length} through ffmpeg`);
        maxLag = 64; // ffmpeg's resampler to the input rate is delay-compensated
      } else {
        assert.equal(atStreamRate.length, n);
        assert.deepEqual(atStreamRate, decodePcm16le(encodePcm16le(input.samples)));
      }
      const { snrDb, lag } = alignedSnr(input.samples, decoded, maxLag);
      t.diagnostic(`${c.format} ${c.rate} Hz: SNR ${snrDb.toFixed(1)} dB at lag ${lag}`);
      assert.ok(snrDb > c.minSnrDb, `SNR ${snrDb} dB`);
      if (c.format === 'mp3') assert.equal(lag, 1105, "LAME's encoder delay");
      else assert.ok(lag <= 2, `lag ${lag}`);
    });
  }

  it('opus complexity: both paths take it (same size at 10 and at the default), and the default costs less than 10', async () => {
    const input = voiceLike(16000, 3);
    const cpuMs = async (complexity: number): Promise<{ bytes: Buffer; ms: number }> => {
      const before = process.cpuUsage();
      let bytes: Buffer = Buffer.alloc(0);
      for (let i = 0; i < 5; i++) bytes = await encodeAudio(input, 'opus', undefined, { implementation: 'native', opusComplexity: complexity });
      const used = process.cpuUsage(before);
      return { bytes, ms: (used.user + used.system) / 1000 };
    };
    const full = await cpuMs(10);
    const standard = await cpuMs(OPUS_COMPLEXITY);
    assert.ok(!full.bytes.equals(standard.bytes), 'the complexity reaches libopus');
    const viaFfmpeg = await encodeAudio(input, 'opus', undefined, { implementation: 'ffmpeg', opusComplexity: 10 });
    assert.ok(Math.abs(full.bytes.length - viaFfmpeg.length) < 0.03 * viaFfmpeg.length, `${full.bytes.length} bytes vs ${viaFfmpeg.length} through ffmpeg at 10`);
    assert.ok(standard.ms < full.ms, `complexity ${OPUS_COMPLEXITY}: ${standard.ms} ms of CPU, 10: ${full.ms} ms`);
    const codec = openOggOpusCodec();
    assert.throws(() => codec.open({ sampleRate: 16000, bitrateKbps: 32, streaming: false, complexity: 11 }), /complexity 11/);
  });

  it('aac: the same bytes as the ffmpeg path, frame for frame (same encoder, same settings, same 16-bit input, same ADTS headers)', async () => {
    for (const rate of [8000, 16000, 24000, 44100, 48000]) {
      const input = voiceLike(rate, 1.37);
      const native = await encodeAudio(input, 'aac', undefined, { implementation: 'native' });
      const ffmpeg = await encodeAudio(input, 'aac', undefined, { implementation: 'ffmpeg' });
      assert.ok(native.length > 1000);
      assert.ok(native.equals(ffmpeg), `${rate} Hz: ${native.length} vs ${ffmpeg.length} bytes`);
    }
  });

  // AAC-LC in ADTS at the default bit rates. The encoder primes with 1024 samples that ADTS cannot
  // mark, so decoders (ffmpeg's too) put them out first: the input comes out 1024 samples late, and
  // whole 1024-sample frames, the last one padded.
  for (const c of [
    { rate: 8000, kbps: 32 },
    { rate: 16000, kbps: 96 },
    { rate: 24000, kbps: 96 },
    { rate: 44100, kbps: 128 },
    { rate: 48000, kbps: 128 },
  ]) {
    it(`aac at ${c.rate} Hz decodes cleanly to the input: AAC LC in ADTS, rate, channels, length, bit rate, waveform`, async (t) => {
      const input = voiceLike(c.rate, 3);
      const n = input.samples.length;
      const bytes = await encodeAudio(input, 'aac', undefined, { implementation: 'native' });
      const probed = JSON.parse((await runToBuffer(FFPROBE, ['-v', 'error', '-show_entries', 'format=format_name:stream=codec_name,profile,sample_rate,channels', '-of', 'json', 'pipe:0'], bytes)).toString('utf8')) as {
        format: { format_name: string };
        streams: { codec_name: string; profile: string; sample_rate: string; channels: number }[];
      };
      assert.equal(probed.format.format_name, 'aac', 'ADTS');
      assert.deepEqual(probed.streams, [{ codec_name: 'aac', profile: 'LC', sample_rate: String(c.rate), channels: 1 }]);

      // Every byte is in an ADTS frame: sync word, MPEG-4, no CRC, LC, the rate's index, one channel, lengths that chain to the end.
      const rateIndex = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000].indexOf(c.rate);
      let frames = 0;
      for (let at = 0; at < bytes.length; frames++) {
        assert.equal(bytes.readUInt16BE(at) & 0xfff7, 0xfff1, `ADTS sync, MPEG-4, no CRC at byte ${at}`);
        assert.equal(bytes[at + 2]! >> 6, 1, 'profile LC');
        assert.equal((bytes[at + 2]! >> 2) & 0x0f, rateIndex, 'sampling frequency index');
        assert.equal(((bytes[at + 2]! & 1) << 2) | (bytes[at + 3]! >> 6), 1, 'one channel');
        const length = ((bytes[at + 3]! & 3) << 11) | (bytes[at + 4]! << 3) | (bytes[at + 5]! >> 5);
        assert.ok(length > 7, `frame length ${length}`);
        at += length;
        assert.ok(at <= bytes.length, 'the last frame is complete');
      }
      assert.equal(frames, Math.ceil((n + 1024) / 1024), 'a frame per 1024 samples, after the priming frame');

      const decoded = await decodeStrictly(bytes);
      assert.equal(decoded.length, frames * 1024);
      const padding = decoded.length - n - 1024;
      assert.ok(padding >= 0 && padding < 1024, `decoded ${decoded.length} samples for ${n}: the input + 1024 of priming + ${padding}, not within one frame`);
      const kbps = (bytes.length * 8) / (decoded.length / c.rate) / 1000;
      const viaFfmpeg = await encodeAudio(input, 'aac', undefined, { implementation: 'ffmpeg' });
      t.diagnostic(`aac ${c.rate} Hz: ${kbps.toFixed(2)} kbit/s for ${c.kbps} (ffmpeg path: ${viaFfmpeg.length} bytes, here ${bytes.length})`);
      assert.ok(Math.abs(kbps - c.kbps) < 0.1 * c.kbps, `${kbps} kbit/s for ${c.kbps} (the encoder's average bit rate)`);
      assert.ok(Math.abs(bytes.length - viaFfmpeg.length) <= 0.02 * viaFfmpeg.length, `${bytes.length} bytes vs ${viaFfmpeg.length} through ffmpeg`);
      const { snrDb, lag } = alignedSnr(input.samples, decoded, 2048);
      t.diagnostic(`aac ${c.rate} Hz: SNR ${snrDb.toFixed(1)} dB at lag ${lag}`);
      assert.equal(lag, 1024, "the encoder's priming");
      assert.ok(snrDb > 25, `SNR ${snrDb} dB`);
    });
  }

  it('aac sessions free their native memory: RSS stays flat over 1,000 encoders (finished, aborted, left early)', async (t) => {
    const piece = voiceLike(24000, 0.2).samples;
    const run = async (count: number): Promise<void> => {
      for (let i = 0; i < count; i++) {
        const encoder = createEncoder('aac', 24000, { streaming: true });
        const out = collect(encoder);
        await encoder.write(piece);
        if (i % 3 === 0) {
          await encoder.end();
          assert.ok((await out.done).length > 0);
        } else if (i % 3 === 1) {
          encoder.abort();
          await out.done.catch(() => undefined);
        } else {
          const iterator = encoder[Symbol.asyncIterator]();
          await iterator.return?.(); // a client that went away
          await out.done.catch(() => undefined);
        }
      }
    };
    await run(500); // warm up: the codec, the allocator, the JIT, the JS heap
    const before = process.memoryUsage().rss;
    await run(1000);
    const grownMb = (process.memoryUsage().rss - before) / 1e6;
    t.diagnostic(`RSS ${(before / 1e6).toFixed(0)} MB after 500 encoders, then grew by ${grownMb.toFixed(1)} MB over 1,000 more (JS heap ${(process.memoryUsage().heapTotal / 1e6).toFixed(0)} MB)`);
    assert.ok(grownMb < 45, `RSS grew by ${grownMb.toFixed(1)} MB over 1,000 aac encoders (each holds about 1.1 MB of native state while open)`);
  });

  it('Ogg Opus follows RFC 7845: header pages, granule positions at 48 kHz with pre-skip, end trim, end-of-stream flag; 1 s pages', async () => {
    const rate = 24000;
    const input = voiceLike(rate, 2.5);
    const pages = oggPages(await encodeAudio(input, 'opus'));
    const [head, tags, ...audio] = pages;
    assert.ok(head && tags && audio.length > 0);
    assert.equal(head.flags, 0x02, 'first page: beginning of stream');
    assert.deepEqual(head.packets.map((p) => p.toString('latin1', 0, 8)), ['OpusHead']);
    const preSkip = head.packets[0]!.readUInt16LE(10);
    assert.equal(preSkip, 312, 'libopus lookahead at 24 kHz (6.5 ms) in 48 kHz samples');
    assert.equal(head.granule, 0n);
    assert.deepEqual(tags.packets.map((p) => p.toString('latin1', 0, 8)), ['OpusTags']);
    assert.equal(tags.granule, 0n);
    let previous = 0n;
    for (const page of audio) {
      assert.ok(page.granule > previous, 'granule positions increase');
      assert.ok(page.packets.length <= 50, `${page.packets.length} 20 ms packets on a page (1 s pages)`);
      previous = page.granule;
    }
    const last = audio[audio.length - 1]!;
    assert.equal(last.flags & 0x04, 0x04, 'last page: end of stream');
    assert.equal(audio.slice(0, -1).filter((p) => (p.flags & 0x04) !== 0).length, 0);
    assert.equal(last.granule, BigInt(preSkip + (input.samples.length * 48000) / rate), 'end trim: pre-skip + the input length at 48 kHz');
  });

  it('a live Opus stream gets short pages (<= 60 ms), and a complete page at the end of every write', async () => {
    const encoder = createEncoder('opus', 16000, { streaming: true });
    const out = collect(encoder);
    await encoder.write(voiceLike(16000, 0.33).samples); // 16 full frames, 10 ms left over
    await waitFor(() => out.chunks.length > 0, 5000, 'the first pages');
    const early = oggPages(Buffer.concat(out.chunks.map((c) => c.bytes)));
    assert.equal(early[early.length - 1]!.granule, 16n * 960n, 'every full frame written is on a page');
    await encoder.write(voiceLike(16000, 0.5).samples);
    await encoder.end();
    const pages = oggPages(await out.done);
    for (const page of pages.slice(2)) assert.ok(page.packets.length <= 3, `${page.packets.length} packets of 20 ms on a page`);
    assert.equal(pages[pages.length - 1]!.flags & 0x04, 0x04);
    const decoded = await decodeStrictly(await Promise.resolve(Buffer.concat(out.chunks.map((c) => c.bytes))));
    assert.equal(decoded.length, 0.83 * 48000);
  });

  it('flac: STREAMINFO declares the length unknown (no seek back in a stream), and ffprobe takes the duration from the frames', async () => {
    const input = voiceLike(24000, 1.5);
    const bytes = await encodeAudio(input, 'flac');
    assert.equal(bytes.toString('latin1', 0, 4), 'fLaC');
    assert.equal(bytes[4]! & 0x7f, 0, 'STREAMINFO first');
    const info = bytes.subarray(8, 8 + 34);
    assert.equal((info.readUInt32BE(10) >>> 12) & 0xfffff, 24000, 'sample rate');
    assert.equal(((info[12]! & 0x0f) * 2 ** 32) + info.readUInt32BE(14), 0, 'total samples: unknown');
    const probe = await probeAudio(bytes);
    assert.equal(probe.durationSec, 1.5);
  });

  it('yields to the event loop while encoding a long clip: with no time budget after every 100 ms of audio', async () => {
    for (const format of ['mp3', 'opus', 'flac', 'aac'] as const) {
      const input = voiceLike(48000, 30);
      let turns = 0;
      let ticking = true;
      const tick = (): void => {
        turns++;
        if (ticking) setImmediate(tick);
      };
      setImmediate(tick);
      const encoder = new NativeEncoder(format, nativeCodec(format)!, 48000, { bitrateKbps: defaultBitrateKbps(format, 48000), turnBudgetMs: 0 });
      const { done } = collect(encoder);
      await encoder.write(input.samples);
      await encoder.end();
      const bytes = await done;
      ticking = false;
      assert.ok(bytes.length > 0);
      // 300 pieces of 100 ms: the event loop turns at least once between two of them.
      assert.ok(turns >= 299, `${format}: the event loop turned ${turns} times while encoding 30 s`);
      assert.deepEqual(comparable(bytes, format), comparable(await encodeAudio(input, format), format), `${format}: the same bytes as with the default budget`);
    }
  });

  it('hands a turn\'s bytes out as one chunk: the stream\'s first bytes at once, the rest of a write together', async () => {
    for (const format of ['mp3', 'opus', 'flac', 'aac'] as const) {
      const input = voiceLike(24000, 1.5);
      const encoder = new NativeEncoder(format, nativeCodec(format)!, 24000, { bitrateKbps: defaultBitrateKbps(format, 24000), streaming: true, turnBudgetMs: Number.POSITIVE_INFINITY });
      const chunks: Buffer[] = [];
      const done = (async () => {
        for await (const chunk of encoder) chunks.push(chunk);
      })();
      await encoder.write(input.samples);
      await sleep(0);
      assert.equal(chunks.length, 2, `${format}: 15 pieces of 100 ms went out as the first bytes and one chunk with the rest`);
      await encoder.end();
      await done;
      assert.deepEqual(comparable(Buffer.concat(chunks), format), comparable(await encodeStreamed(input, format), format), `${format}: the same stream as with the default budget`);
    }
  });

  it("the aac binding takes only libavcodec 59 / libavutil 57 from the versions its struct offsets come from (else aac goes through ffmpeg)", () => {
    const version = (major: number, minor: number, micro = 100): number => (major << 16) | (minor << 8) | micro;
    assert.doesNotThrow(() => assertKnownLayout('libavcodec', version(59, 37)));
    assert.doesNotThrow(() => assertKnownLayout('libavcodec', version(59, 40)));
    assert.doesNotThrow(() => assertKnownLayout('libavutil', version(57, 28)));
    assert.throws(() => assertKnownLayout('libavcodec', version(59, 18)), /libavcodec 59\.18\.100/); // FFmpeg 5.0: no ch_layout yet
    assert.throws(() => assertKnownLayout('libavcodec', version(60, 3)), /libavcodec 60\.3\.100/); // FFmpeg 6.0
    assert.throws(() => assertKnownLayout('libavutil', version(58, 2)), /libavutil/);
    assert.throws(() => assertKnownLayout('libavutil', version(56, 70)), /libavutil/);
  });

  it('a codec library that cannot be loaded throws at load (createEncoder then uses ffmpeg), and each format logs once which path it takes', () => {
    assert.throws(() => openLameCodec('libmp3lame-missing.so.0'));
    assert.throws(() => openOggOpusCodec('libopus-missing.so.0'));
    assert.throws(() => openOggOpusCodec(undefined, 'libogg-missing.so.0'));
    assert.throws(() => openFlacCodec('libFLAC-missing.so.12'));
    assert.throws(() => openAacCodec('libavcodec-missing.so.59'));
    assert.throws(() => openAacCodec(undefined, 'libavutil-missing.so.57'));
    const paths = logLines.map((line) => JSON.parse(line) as { msg: string; format?: string }).filter((r) => r.msg.startsWith('audio encoder'));
    assert.deepEqual(paths.map((r) => `${r.format}: ${r.msg}`).sort(), ['aac: audio encoder runs in process', 'flac: audio encoder runs in process', 'mp3: audio encoder runs in process', 'opus: audio encoder runs in process']);
  });
});

describe('createEncoder (streaming)', () => {
  for (const implementation of IMPLEMENTATIONS) {
    for (const format of ['mp3', 'opus', 'aac', 'flac'] as const) {
      it(`${format} (${implementation}) yields audio bytes before end() is called`, async (t) => {
        const started = performance.now();
        const encoder = createEncoder(format, 24000, { streaming: true, implementation });
        assert.equal(encoder.format, format);
        assert.equal(encoder.sampleRate, 24000);
        const out = collect(encoder);
        await encoder.write(tone(24000, 0.5).samples); // one TTS chunk

        await waitFor(() => out.chunks.length > 0, 5000, `first ${format} bytes`);
        const early = Buffer.concat(out.chunks.map((c) => c.bytes));
        t.diagnostic(`${format} (${implementation}): create → first byte ${(out.chunks[0]!.at - started).toFixed(1)} ms`);
        if (format === 'mp3') {
          assert.equal(early[0], 0xff, 'starts with an MPEG audio frame (no ID3 tag)');
          assert.equal(early[1]! & 0xe0, 0xe0, 'frame sync');
        }
        await encoder.write(tone(24000, 0.5).samples);
        await encoder.end();
        const bytes = await out.done;
        assert.ok(bytes.length > early.length);
        const probe = await probeAudio(bytes);
        assert.ok(probe.durationSec >= 1.0 - 0.05 && probe.durationSec <= 1.0 + 0.15, `duration ${probe.durationSec}`);
        await decodeStrictly(bytes);
      });
    }

    it(`holds the encoder back while the consumer is behind, then delivers every sample (flac, lossless, ${implementation})`, async () => {
      const encoder = createEncoder('flac', 48000, { implementation });
      let seed = 1;
      const noise = new Float32Array(48000 * 30).map(() => {
        seed = (seed * 1103515245 + 12345) >>> 0;
        return (seed / 2 ** 32 - 0.5) * 0.8; // white noise: flac cannot compress it much
      });
      let accepted = 0;
      const feeding = (async () => {
        for (let at = 0; at < noise.length; at += 48000) {
          await encoder.write(noise.subarray(at, at + 48000));
          accepted++;
        }
        await encoder.end();
      })();
      await sleep(500);
      assert.ok(accepted < 30, `writer stalled (accepted ${accepted} of 30 one-second chunks)`);
      const out = collect(encoder);
      await feeding;
      const decoded = await decodeWithFfmpeg(await out.done);
      assert.deepEqual(decoded.samples, decodePcm16le(encodePcm16le(noise)));
    });

    it(`an encoder failure rejects with AUDIO_ENCODING_FAILED, the reason only in the cause (${implementation})`, async () => {
      const encoder = createEncoder('opus', 24000, { bitrateKbps: 100_000, implementation }); // libopus takes at most 256 kbit/s per channel
      const out = collect(encoder);
      // Input may or may not be accepted before the encoder gives up; once it has, every call rejects.
      const writing = encoder.write(tone(24000, 0.5).samples).then(() => encoder.end()).catch(() => undefined);
      await assert.rejects(out.done, (error: unknown) => {
        assert.ok(isTtsError('AUDIO_ENCODING_FAILED')(error));
        assert.ok(error instanceof TtsError);
        assert.equal(error.message, 'The audio encoder failed.');
        assert.match(String((error.cause as Error).message), /bit rate/i);
        return true;
      });
      await writing;
      await assert.rejects(encoder.write(new Float32Array(1)), isTtsError('AUDIO_ENCODING_FAILED'));
      await waitFor(() => ffmpegChildren().length === 0, 2000, 'ffmpeg to exit');
    });
  }

  it('abort() of an in-process encoder: no ffmpeg at all; a pending read, the iterator, writes and end reject with TTS_CANCELLED', async () => {
    for (const format of ['mp3', 'opus', 'flac', 'aac'] as const) {
      const encoder = createEncoder(format, 24000);
      const iterator = encoder[Symbol.asyncIterator]();
      const pending = iterator.next(); // nothing encoded yet
      await encoder.write(tone(24000, 0.01).samples); // less than a frame: nothing comes out
      assert.equal(ffmpegChildren().length, 0, 'no ffmpeg process');

      encoder.abort();

      await assert.rejects(pending, isTtsError('TTS_CANCELLED'));
      await assert.rejects(iterator.next(), isTtsError('TTS_CANCELLED'));
      await assert.rejects(encoder.write(new Float32Array(10)), isTtsError('TTS_CANCELLED'));
      await assert.rejects(encoder.end(), isTtsError('TTS_CANCELLED'));

      const queued = createEncoder(format, 24000);
      await queued.write(tone(24000, 0.5).samples); // bytes are waiting for the consumer
      queued.abort();
      await assert.rejects(queued[Symbol.asyncIterator]().next(), isTtsError('TTS_CANCELLED'), 'queued bytes are dropped');
    }
  });

  it('abort() in the middle of a long write stops it between two pieces', async () => {
    const encoder = createEncoder('mp3', 48000);
    const out = collect(encoder);
    const writing = encoder.write(voiceLike(48000, 30).samples);
    await waitFor(() => out.chunks.length > 0, 5000, 'the first piece');
    encoder.abort();
    await Promise.all([assert.rejects(writing, isTtsError('TTS_CANCELLED')), assert.rejects(out.done, isTtsError('TTS_CANCELLED'))]);
    assert.ok(out.chunks.length < 300, `${out.chunks.length} pieces encoded of 300`);
  });

  it('abort() kills ffmpeg at once, leaves no zombie, and rejects the iterator and writes with TTS_CANCELLED', async () => {
    const encoder = createEncoder('mp3', 24000, { implementation: 'ffmpeg' });
    const iterator = encoder[Symbol.asyncIterator]();
    await encoder.write(tone(24000, 0.2).samples);
    assert.equal(ffmpegChildren().length, 1, 'ffmpeg runs');
    const pending = iterator.next();

    encoder.abort();

    await assert.rejects(pending, isTtsError('TTS_CANCELLED'));
    await assert.rejects(encoder.write(new Float32Array(10)), isTtsError('TTS_CANCELLED'));
    await assert.rejects(encoder.end(), isTtsError('TTS_CANCELLED'));
    await waitFor(() => ffmpegChildren().length === 0, 2000, 'ffmpeg to exit and be reaped');
  });

  for (const implementation of IMPLEMENTATIONS) {
    it(`an AbortSignal aborts the encoder, and leaving the loop early stops it (${implementation})`, async () => {
      const controller = new AbortController();
      const encoder = createEncoder('opus', 48000, { signal: controller.signal, implementation });
      const out = collect(encoder);
      await encoder.write(tone(48000, 0.2).samples);
      controller.abort();
      await assert.rejects(out.done, isTtsError('TTS_CANCELLED'));
      await waitFor(() => ffmpegChildren().length === 0, 2000, 'ffmpeg to exit');

      for (const format of implementation === 'native' ? (['mp3', 'flac', 'aac'] as const) : (['aac'] as const)) {
        const early = createEncoder(format, 24000, { streaming: true, implementation });
        const feeding = (async () => {
          for (let i = 0; i < 300; i++) await early.write(tone(24000, 0.1).samples); // 30 s: more than ffmpeg takes before its first bytes
          await early.end();
        })();
        for await (const chunk of early) {
          assert.ok(chunk.length > 0);
          break;
        }
        await assert.rejects(feeding, isTtsError('TTS_CANCELLED'));
      }
      await waitFor(() => ffmpegChildren().length === 0, 2000, 'ffmpeg to exit after break');
      assert.ok(AbortSignal.abort().aborted);
      const aborted = createEncoder('flac', 24000, { signal: AbortSignal.abort(), implementation });
      await assert.rejects(aborted.write(new Float32Array(1)), isTtsError('TTS_CANCELLED'));
    });
  }

  it('streaming wav: header with 0xFFFFFFFF sizes at once, then raw samples as written', async () => {
    const encoder = createEncoder('wav', 16000, { streaming: true });
    assert.equal(encoder.contentType, 'audio/wav');
    const out = collect(encoder);
    await waitFor(() => out.chunks.length === 1, 1000, 'the header');
    assert.equal(out.chunks[0]!.bytes.readUInt32LE(40), 0xffffffff);
    const input = tone(16000, 0.3);
    await encoder.write(input.samples);
    await waitFor(() => out.chunks.length === 2, 1000, 'the samples');
    await encoder.end();
    const decoded = decodeWav(await out.done);
    assert.deepEqual(decoded.samples, decodePcm16le(encodePcm16le(input.samples)));
  });

  it('whole-file wav: nothing until end(), then exact sizes', async () => {
    const encoder = createEncoder('wav', 16000);
    const out = collect(encoder);
    await encoder.write(new Float32Array(100));
    await encoder.write(new Float32Array(50));
    await sleep(20);
    assert.equal(out.chunks.length, 0);
    await encoder.end();
    await encoder.end(); // idempotent
    const bytes = await out.done;
    assert.equal(bytes.readUInt32LE(40), 300);
    assert.equal(bytes.length, 344);
  });

  it('applies backpressure: write waits while the consumer is far behind', async () => {
    const encoder = createEncoder('pcm', 24000);
    let accepted = false;
    const writing = encoder.write(new Float32Array(600_000)).then(() => {
      accepted = true;
    });
    await sleep(20);
    assert.equal(accepted, false, 'not accepted while 1.2 MB wait unread');
    const out = collect(encoder);
    await writing;
    assert.equal(accepted, true);
    await encoder.end();
    assert.equal((await out.done).length, 1_200_000);
  });

  it('rejects unknown formats, rates the codec does not take, and bad bit rates', () => {
    assert.throws(() => createEncoder('ogg' as AudioFormat, 24000), isTtsError('TTS_FORMAT_UNSUPPORTED'));
    assert.throws(() => createEncoder('opus', 22050), isTtsError('TTS_SAMPLE_RATE_INVALID'));
    assert.throws(() => createEncoder('mp3', 20000), isTtsError('TTS_SAMPLE_RATE_INVALID'));
    assert.throws(() => createEncoder('pcm', 96000), isTtsError('TTS_SAMPLE_RATE_INVALID'));
    assert.throws(() => createEncoder('mp3', 24000, { bitrateKbps: 0 }), RangeError);
    assert.equal(ffmpegChildren().length, 0, 'nothing spawned');
  });

  it('write after end() is a programming error', async () => {
    for (const format of ['pcm', 'mp3'] as const) {
      const encoder = createEncoder(format, 24000);
      const out = collect(encoder);
      await encoder.end();
      await assert.rejects(encoder.write(new Float32Array(1)), /after end\(\)|finished/);
      const bytes = await out.done;
      if (format === 'pcm') assert.equal(bytes.length, 0);
    }
  });
});

describe('encodeAudio bit rate', () => {
  it('encodes mp3 and opus at the bit rate asked for (ElevenLabs mp3_44100_32 .. _192, opus_48000_32 .. _192)', async () => {
    for (const [format, rate] of [['mp3', 44100], ['opus', 48000]] as const) {
      const sizes: number[] = [];
      for (const kbps of [32, 192]) {
        const bytes = await encodeAudio(voiceLike(rate, 3), format, undefined, { bitrateKbps: kbps });
        assert.equal((await probeAudio(bytes)).sampleRate, rate);
        sizes.push(bytes.length);
        // Within a fifth of the asked rate over 3 s (container overhead, VBR of opus).
        const measured = (bytes.length * 8) / 3 / 1000;
        assert.ok(Math.abs(measured - kbps) / kbps < 0.25, `${format} at ${kbps} kbit/s measured ${measured.toFixed(1)}`);
      }
      assert.ok(sizes[1]! > sizes[0]! * 3, `${format}: 192 kbit/s is much larger than 32 (${sizes.join(', ')})`);
    }
  });
});
