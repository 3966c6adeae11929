import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { TtsError } from '@tts/common';
import { createEncoder, encodeAudio, type AudioEncoder } from './encode.js';
import type { AudioFormat } from '@tts/common/audio';
import { decodePcm16le, encodePcm16le, type PcmAudio } from './pcm.js';
import { decodeWithFfmpeg, probeAudio } from './probe.js';
import { ffmpegChildren, sine, toneAmplitude, zeroCrossingRate } from './testing.js';
import { decodeWav } from './wav.js';

const dB = (ratio: number): number => 20 * Math.log10(ratio);

/** A 440 Hz tone at amplitude 0.5 (not a power-of-two length, so codecs must pad). */
const tone = (sampleRate: number, sec = 2.01): PcmAudio => sine(440, sampleRate, sec, 0.5);

function isTtsError(error: unknown, code: string): boolean {
  assert.ok(error instanceof TtsError, `expected TtsError ${code}, got ${String(error)}`);
  assert.equal(error.code, code);
  return true;
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
    it(`${c.format} at ${c.rate} Hz: ffprobe sees ${c.codec} in ${c.container} with the right rate and duration, and it decodes to the tone`, async () => {
      const input = tone(c.rate);
      const bytes = await encodeAudio(input, c.format);

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

  it('flac and wav are lossless: they decode to exactly the 16-bit input', async () => {
    const input = tone(24000, 0.7);
    const quantized = decodePcm16le(encodePcm16le(input.samples));
    for (const format of ['flac', 'wav'] as const) {
      const decoded = await decodeWithFfmpeg(await encodeAudio(input, format));
      assert.equal(decoded.sampleRate, 24000);
      assert.deepEqual(decoded.samples, quantized, format);
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
    await assert.rejects(encodeAudio(tone(24000), 'mp3', AbortSignal.abort()), (e) => isTtsError(e, 'TTS_CANCELLED'));
  });
});

describe('createEncoder (streaming)', () => {
  for (const format of ['mp3', 'opus', 'aac', 'flac'] as const) {
    it(`${format} yields audio bytes before end() is called`, async (t) => {
      const started = performance.now();
      const encoder = createEncoder(format, 24000, { streaming: true });
      assert.equal(encoder.format, format);
      assert.equal(encoder.sampleRate, 24000);
      const out = collect(encoder);
      await encoder.write(tone(24000, 0.5).samples); // one TTS chunk

      await waitFor(() => out.chunks.length > 0, 5000, `first ${format} bytes`);
      const early = Buffer.concat(out.chunks.map((c) => c.bytes));
      t.diagnostic(`${format}: spawn → first byte ${(out.chunks[0]!.at - started).toFixed(1)} ms`);
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

  it('holds ffmpeg back while the consumer is behind, then delivers every sample (flac, lossless)', async () => {
    const encoder = createEncoder('flac', 48000);
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

  it('abort() kills ffmpeg at once, leaves no zombie, and rejects the iterator and writes with TTS_CANCELLED', async () => {
    const encoder = createEncoder('mp3', 24000);
    const iterator = encoder[Symbol.asyncIterator]();
    await encoder.write(tone(24000, 0.2).samples);
    assert.equal(ffmpegChildren().length, 1, 'ffmpeg runs');
    const pending = iterator.next();

    encoder.abort();

    await assert.rejects(pending, (e) => isTtsError(e, 'TTS_CANCELLED'));
    await assert.rejects(encoder.write(new Float32Array(10)), (e) => isTtsError(e, 'TTS_CANCELLED'));
    await assert.rejects(encoder.end(), (e) => isTtsError(e, 'TTS_CANCELLED'));
    await waitFor(() => ffmpegChildren().length === 0, 2000, 'ffmpeg to exit and be reaped');
  });

  it('an AbortSignal aborts the encoder, and leaving the loop early stops ffmpeg', async () => {
    const controller = new AbortController();
    const encoder = createEncoder('opus', 48000, { signal: controller.signal });
    const out = collect(encoder);
    await encoder.write(tone(48000, 0.2).samples);
    controller.abort();
    await assert.rejects(out.done, (e) => isTtsError(e, 'TTS_CANCELLED'));
    await waitFor(() => ffmpegChildren().length === 0, 2000, 'ffmpeg to exit');

    const early = createEncoder('aac', 24000, { streaming: true });
    const feeding = (async () => {
      for (let i = 0; i < 50; i++) await early.write(tone(24000, 0.1).samples);
      await early.end();
    })();
    for await (const chunk of early) {
      assert.ok(chunk.length > 0);
      break;
    }
    await assert.rejects(feeding, (e) => isTtsError(e, 'TTS_CANCELLED'));
    await waitFor(() => ffmpegChildren().length === 0, 2000, 'ffmpeg to exit after break');
  });

  it('an ffmpeg failure rejects with AUDIO_ENCODING_FAILED, stderr only in the cause', async () => {
    const encoder = createEncoder('opus', 24000, { bitrateKbps: 100_000 }); // libopus takes at most 256 kbit/s
    const out = collect(encoder);
    // Input may or may not be accepted before ffmpeg gives up; once it has, every call rejects.
    const writing = encoder.write(tone(24000, 0.5).samples).then(() => encoder.end()).catch(() => undefined);
    await assert.rejects(out.done, (error: unknown) => {
      assert.ok(isTtsError(error, 'AUDIO_ENCODING_FAILED'));
      assert.ok(error instanceof TtsError);
      assert.equal(error.message, 'The audio encoder failed.');
      assert.match(String((error.cause as Error).message), /bit rate/i);
      return true;
    });
    await writing;
    await assert.rejects(encoder.write(new Float32Array(1)), (e) => isTtsError(e, 'AUDIO_ENCODING_FAILED'));
    await waitFor(() => ffmpegChildren().length === 0, 2000, 'ffmpeg to exit');
  });

  it('rejects unknown formats, rates the codec does not take, and bad bit rates', () => {
    assert.throws(() => createEncoder('ogg' as AudioFormat, 24000), (e) => isTtsError(e, 'TTS_FORMAT_UNSUPPORTED'));
    assert.throws(() => createEncoder('opus', 22050), (e) => isTtsError(e, 'TTS_SAMPLE_RATE_INVALID'));
    assert.throws(() => createEncoder('mp3', 20000), (e) => isTtsError(e, 'TTS_SAMPLE_RATE_INVALID'));
    assert.throws(() => createEncoder('pcm', 96000), (e) => isTtsError(e, 'TTS_SAMPLE_RATE_INVALID'));
    assert.throws(() => createEncoder('mp3', 24000, { bitrateKbps: 0 }), RangeError);
    assert.equal(ffmpegChildren().length, 0, 'nothing spawned');
  });

  it('write after end() is a programming error', async () => {
    const encoder = createEncoder('pcm', 24000);
    const out = collect(encoder);
    await encoder.end();
    await assert.rejects(encoder.write(new Float32Array(1)), /after end\(\)|finished/);
    assert.equal((await out.done).length, 0);
  });
});
