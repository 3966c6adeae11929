import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createEncoder, encodeAudio } from './encode.js';
import { decodeG711, encodeG711, type G711Format } from './g711.js';
import { FFMPEG, FFMPEG_QUIET, runToBuffer } from './media-process.js';
import { decodeFloat32le } from './pcm.js';
import { sine, toneAmplitude } from './testing.js';

/** ffmpeg's own G.711 decoder (`-f mulaw` / `-f alaw`, 8 kHz mono), float samples. */
async function ffmpegDecode(format: G711Format, bytes: Buffer): Promise<Float32Array> {
  const demuxer = format === 'ulaw' ? 'mulaw' : 'alaw';
  const raw = await runToBuffer(FFMPEG, [...FFMPEG_QUIET, '-f', demuxer, '-ar', '8000', '-ac', '1', '-i', 'pipe:0', '-f', 'f32le', 'pipe:1'], bytes);
  return decodeFloat32le(raw);
}

describe('G.711 encoders', () => {
  for (const format of ['ulaw', 'alaw'] as const) {
    it(`${format}: one byte per sample, which ffmpeg decodes to the same tone and duration`, async () => {
      const audio = sine(440, 8000, 1.5, 0.5);
      const bytes = await encodeAudio(audio, format);
      assert.equal(bytes.length, audio.samples.length, 'one byte per sample, no header');
      const decoded = await ffmpegDecode(format, bytes);
      assert.equal(decoded.length, audio.samples.length, '1.5 s at 8 kHz');
      assert.ok(Math.abs(toneAmplitude({ samples: decoded, sampleRate: 8000 }, 440) - 0.5) < 0.02, `440 Hz at 0.5 (${toneAmplitude({ samples: decoded, sampleRate: 8000 }, 440).toFixed(3)})`);
      // Companding keeps the error within a few percent of the signal.
      let err = 0;
      for (let i = 0; i < decoded.length; i++) err = Math.max(err, Math.abs(decoded[i]! - audio.samples[i]!));
      assert.ok(err < 0.02, `largest error ${err.toFixed(4)}`);
      assert.deepEqual(decodeG711(format, bytes), decoded, 'our decoder agrees with ffmpeg');
    });

    it(`${format}: the streaming encoder writes the one-shot bytes, resampled to 8 kHz from the voice's rate`, async () => {
      const audio = sine(300, 16000, 1, 0.4);
      const whole = await encodeAudio(audio, format);
      assert.equal(whole.length, 8000, '1 s at 8 kHz');
      const encoder = createEncoder(format, 8000, { streaming: true });
      assert.equal(encoder.contentType, format === 'ulaw' ? 'audio/basic' : 'audio/x-alaw-basic');
      const chunks: Buffer[] = [];
      const reading = (async () => {
        for await (const c of encoder) chunks.push(c);
      })();
      const samples = sine(300, 8000, 1, 0.4).samples;
      for (let at = 0; at < samples.length; at += 1000) await encoder.write(samples.subarray(at, at + 1000));
      await encoder.end();
      await reading;
      assert.deepEqual(Buffer.concat(chunks), encodeG711(format, samples));
    });

    it(`${format}: any rate but 8000 Hz is refused`, () => {
      assert.throws(() => createEncoder(format, 16000), (e: unknown) => (e as { code?: string }).code === 'TTS_SAMPLE_RATE_INVALID');
    });
  }
});
