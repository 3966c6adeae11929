import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TtsError } from '@tts/common';
import { int16ToFloat } from './pcm.js';
import { ffmpegGenerate, sine, toneAmplitude } from './testing.js';
import { decodeWav, encodeWav, wavHeader } from './wav.js';

/** Builds a RIFF file from chunks, padding odd-sized chunk bodies as the format requires. */
function riff(chunks: readonly (readonly [string, Buffer])[], form = 'RIFF', riffSize?: number): Buffer {
  const parts = chunks.flatMap(([id, body]) => {
    const head = Buffer.alloc(8);
    head.write(id, 0, 'ascii');
    head.writeUInt32LE(body.length, 4);
    return body.length % 2 === 1 ? [head, body, Buffer.alloc(1)] : [head, body];
  });
  const body = Buffer.concat([Buffer.from('WAVE', 'ascii'), ...parts]);
  const head = Buffer.alloc(8);
  head.write(form, 0, 'ascii');
  head.writeUInt32LE(riffSize ?? body.length, 4);
  return Buffer.concat([head, body]);
}

function fmtChunk(tag: number, channels: number, rate: number, bits: number): Buffer {
  const b = Buffer.alloc(16);
  b.writeUInt16LE(tag, 0);
  b.writeUInt16LE(channels, 2);
  b.writeUInt32LE(rate, 4);
  b.writeUInt32LE((rate * channels * bits) / 8, 8);
  b.writeUInt16LE((channels * bits) / 8, 12);
  b.writeUInt16LE(bits, 14);
  return b;
}

function int16Bytes(values: readonly number[]): Buffer {
  const b = Buffer.alloc(values.length * 2);
  values.forEach((v, i) => b.writeInt16LE(v, i * 2));
  return b;
}

function assertDecodeFails(bytes: Uint8Array, pattern: RegExp): void {
  assert.throws(() => decodeWav(bytes), (error: unknown) => {
    assert.ok(error instanceof TtsError);
    assert.equal(error.code, 'AUDIO_DECODE_FAILED');
    assert.match(error.message, pattern);
    return true;
  });
}

describe('encodeWav / decodeWav round trip', () => {
  it('is bit-exact at 16 bit, extremes included', () => {
    const ints = new Int16Array(4000);
    let seed = 12345;
    for (let i = 0; i < ints.length; i++) {
      seed = (seed * 1103515245 + 12345) >>> 0;
      ints[i] = (seed >>> 16) - 32768;
    }
    ints.set([-32768, 32767, 0, -1, 1], 0);
    const audio = { samples: int16ToFloat(ints), sampleRate: 22050 };

    const file = encodeWav(audio);

    assert.equal(file.length, 44 + ints.length * 2);
    assert.deepEqual(file.subarray(44), Buffer.from(ints.buffer));
    const decoded = decodeWav(file);
    assert.equal(decoded.sampleRate, 22050);
    assert.equal(decoded.channels, 1);
    assert.equal(decoded.bitsPerSample, 16);
    assert.equal(decoded.format, 'pcm');
    assert.deepEqual(decoded.samples, audio.samples);
    assert.deepEqual(encodeWav(decoded), file);
  });

  it('writes the canonical 44-byte header with exact sizes', () => {
    const file = encodeWav({ samples: new Float32Array(3), sampleRate: 24000 });
    assert.equal(file.toString('ascii', 0, 4), 'RIFF');
    assert.equal(file.readUInt32LE(4), 36 + 6);
    assert.equal(file.toString('ascii', 8, 16), 'WAVEfmt ');
    assert.deepEqual([file.readUInt32LE(16), file.readUInt16LE(20), file.readUInt16LE(22)], [16, 1, 1]);
    assert.deepEqual([file.readUInt32LE(24), file.readUInt32LE(28), file.readUInt16LE(32), file.readUInt16LE(34)], [24000, 48000, 2, 16]);
    assert.equal(file.toString('ascii', 36, 40), 'data');
    assert.equal(file.readUInt32LE(40), 6);
  });
});

describe('wavHeader', () => {
  it('writes 0xFFFFFFFF sizes for streaming, and decodeWav reads such a stream to its end', () => {
    const header = wavHeader(16000);
    assert.equal(header.length, 44);
    assert.equal(header.readUInt32LE(4), 0xffffffff);
    assert.equal(header.readUInt32LE(40), 0xffffffff);
    const decoded = decodeWav(Buffer.concat([header, int16Bytes([100, -200, 300])]));
    assert.deepEqual(Array.from(decoded.samples), [100 / 32768, -200 / 32768, 300 / 32768]);
  });

  it('writes channel counts and rejects impossible values', () => {
    const stereo = wavHeader(48000, 400, 2);
    assert.deepEqual([stereo.readUInt16LE(22), stereo.readUInt32LE(28), stereo.readUInt16LE(32)], [2, 192000, 4]);
    assert.throws(() => wavHeader(0), RangeError);
    assert.throws(() => wavHeader(24000, -1), RangeError);
    assert.throws(() => wavHeader(24000, 2 ** 32), RangeError);
  });
});

describe('decodeWav of files ffmpeg writes', () => {
  const tone = 'sine=frequency=440:sample_rate=22050:duration=0.5'; // amplitude 1/8

  for (const [codec, bits, format] of [
    ['pcm_u8', 8, 'pcm'],
    ['pcm_s24le', 24, 'pcm'],
    ['pcm_s32le', 32, 'pcm'],
    ['pcm_f32le', 32, 'float'],
    ['pcm_f64le', 64, 'float'],
  ] as const) {
    it(`reads ${codec}`, async () => {
      const file = await ffmpegGenerate(tone, ['-c:a', codec, '-f', 'wav']);
      const decoded = decodeWav(file);
      assert.equal(decoded.sampleRate, 22050);
      assert.equal(decoded.bitsPerSample, bits);
      assert.equal(decoded.format, format);
      assert.equal(decoded.samples.length, 11025);
      const tolerance = bits === 8 ? 0.01 : 1e-4;
      assert.ok(Math.abs(toneAmplitude(decoded, 440) - 0.125) < tolerance, `amplitude ${toneAmplitude(decoded, 440)}`);
      // Reference: the same tone as 16-bit, which decodes to the same samples within 16-bit precision.
      const reference = sine(440, 22050, 0.5, 0.125).samples;
      for (let i = 0; i < reference.length; i += 97) assert.ok(Math.abs(decoded.samples[i]! - reference[i]!) < (bits === 8 ? 0.01 : 1e-4), `sample ${i}`);
    });
  }

  it('reads WAVE_FORMAT_EXTENSIBLE 6-channel 24-bit and mixes down to the channel mean', async () => {
    const s = '0.6*sin(2*PI*440*t)|0.3*sin(2*PI*440*t)|0|0|0|0.3*sin(2*PI*440*t)';
    const file = await ffmpegGenerate(`aevalsrc=${s}:c=5.1:s=22050:d=0.5`, ['-c:a', 'pcm_s24le', '-f', 'wav']);
    assert.equal(file.readUInt16LE(20), 0xfffe, 'fixture is extensible');
    const decoded = decodeWav(file);
    assert.equal(decoded.channels, 6);
    assert.equal(decoded.bitsPerSample, 24);
    assert.ok(Math.abs(toneAmplitude(decoded, 440) - 0.2) < 1e-4, `amplitude ${toneAmplitude(decoded, 440)}`);
  });

  it('averages different stereo channels (left tone, right silence → half amplitude)', async () => {
    const file = await ffmpegGenerate('aevalsrc=0.5*sin(2*PI*440*t)|0:s=16000:d=0.5', ['-c:a', 'pcm_s16le', '-f', 'wav']);
    assert.equal(file.readUInt16LE(22), 2, 'fixture is stereo');
    const decoded = decodeWav(file);
    assert.equal(decoded.channels, 2);
    assert.equal(decoded.sampleRate, 16000);
    assert.ok(Math.abs(toneAmplitude(decoded, 440) - 0.25) < 1e-3, `amplitude ${toneAmplitude(decoded, 440)}`);
  });

  it('reads piped output: streaming sizes, extensible float header and a LIST chunk', async () => {
    const file = await ffmpegGenerate(tone, ['-c:a', 'pcm_f32le', '-f', 'wav']);
    assert.equal(file.readUInt32LE(4), 0xffffffff, 'fixture has streaming sizes');
    assert.ok(file.includes('LIST'), 'fixture has a LIST chunk');
    assert.equal(decodeWav(file).samples.length, 11025);
  });
});

describe('decodeWav of unusual layouts', () => {
  const pcm = int16Bytes([1000, -1000, 2000]);

  it('skips LIST/fact and odd-sized chunks before data and ignores chunks after it', () => {
    const file = riff([
      ['LIST', Buffer.from('INFOISFT\x03\x00\x00\x00ab\x00', 'latin1')],
      ['odd ', Buffer.from([1, 2, 3])],
      ['fmt ', fmtChunk(1, 1, 8000, 16)],
      ['fact', Buffer.from([3, 0, 0, 0])],
      ['data', pcm],
      ['id3 ', Buffer.alloc(10)],
    ]);
    const decoded = decodeWav(file);
    assert.equal(decoded.sampleRate, 8000);
    assert.deepEqual(Array.from(decoded.samples), [1000 / 32768, -1000 / 32768, 2000 / 32768]);
  });

  it('reads the fmt chunk when it follows the data chunk', () => {
    const decoded = decodeWav(riff([['data', pcm], ['fmt ', fmtChunk(1, 1, 8000, 16)]]));
    assert.equal(decoded.samples.length, 3);
  });

  it('reads an odd-length 8-bit data chunk with its pad byte', () => {
    const decoded = decodeWav(riff([['fmt ', fmtChunk(1, 1, 8000, 8)], ['data', Buffer.from([128, 255, 0])]]));
    assert.deepEqual(Array.from(decoded.samples), [0, 127 / 128, -1]);
  });

  it('reads non-extensible IEEE float (format tag 3)', () => {
    const data = Buffer.alloc(8);
    data.writeFloatLE(0.25, 0);
    data.writeFloatLE(-0.5, 4);
    const decoded = decodeWav(riff([['fmt ', fmtChunk(3, 1, 44100, 32)], ['data', data]]));
    assert.equal(decoded.format, 'float');
    assert.deepEqual(Array.from(decoded.samples), [0.25, -0.5]);
  });

  it('reads RF64 with its ds64 data size', () => {
    const ds64 = Buffer.alloc(28);
    ds64.writeUInt32LE(pcm.length, 8);
    const file = riff([['ds64', ds64], ['fmt ', fmtChunk(1, 1, 8000, 16)], ['data', pcm], ['junk', Buffer.alloc(4)]], 'RF64', 0xffffffff);
    file.writeUInt32LE(0xffffffff, file.indexOf('data') + 4);
    assert.equal(decodeWav(file).samples.length, 3);
  });

  it('drops a trailing partial frame of a truncated file', () => {
    const file = riff([['fmt ', fmtChunk(1, 2, 8000, 16)], ['data', int16Bytes([1, 2, 3, 4])]]);
    assert.equal(decodeWav(file.subarray(0, file.length - 2)).samples.length, 1);
  });
});

describe('decodeWav rejects what it cannot read with AUDIO_DECODE_FAILED', () => {
  it('garbage, other RIFF forms and truncation', () => {
    assertDecodeFails(Buffer.from('not a wav file at all'), /not a WAV/);
    assertDecodeFails(Buffer.alloc(4), /too short/);
    assertDecodeFails(Buffer.from('RIFF\x04\x00\x00\x00AVI LIST', 'latin1'), /not a WAV/);
    assertDecodeFails(Buffer.from('RIFX\x04\x00\x00\x00WAVE', 'latin1'), /Big-endian/);
  });

  it('missing chunks and unsupported encodings', () => {
    assertDecodeFails(riff([['data', Buffer.alloc(4)]]), /no fmt chunk/);
    assertDecodeFails(riff([['fmt ', fmtChunk(1, 1, 8000, 16)]]), /no data chunk/);
    assertDecodeFails(riff([['fmt ', fmtChunk(7, 1, 8000, 8)], ['data', Buffer.alloc(4)]]), /format tag 0x7/);
    assertDecodeFails(riff([['fmt ', fmtChunk(1, 0, 8000, 16)], ['data', Buffer.alloc(4)]]), /zero channels/);
    assertDecodeFails(riff([['fmt ', fmtChunk(3, 1, 8000, 16)], ['data', Buffer.alloc(4)]]), /16-bit float/);
    assertDecodeFails(riff([['fmt ', Buffer.alloc(8)], ['data', Buffer.alloc(4)]]), /fmt chunk is too short/);
  });
});
