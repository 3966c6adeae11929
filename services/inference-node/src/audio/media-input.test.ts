import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { isTtsError } from '@tts/common/testing';
import { checkMediaFormat, MEDIA_LIMITS, sniffContainer } from './media-input.js';
import { decodeWithFfmpeg, probeAudio } from './probe.js';
import { ffmpegGenerate } from './testing.js';
import { encodeWav } from './wav.js';

describe('sniffContainer', () => {
  it('names each accepted container from its magic', async () => {
    const tone = 'sine=frequency=440:sample_rate=16000:duration=0.3';
    const made: [string, Buffer][] = [
      ['wav', encodeWav({ samples: new Float32Array(100), sampleRate: 16000 })],
      ['mp3', await ffmpegGenerate(tone, ['-c:a', 'libmp3lame', '-f', 'mp3'])],
      ['mp3', await ffmpegGenerate(tone, ['-c:a', 'libmp3lame', '-write_xing', '0', '-id3v2_version', '0', '-f', 'mp3'])],
      ['aac', await ffmpegGenerate(tone, ['-c:a', 'aac', '-f', 'adts'])],
      ['ogg', await ffmpegGenerate(tone, ['-c:a', 'libopus', '-f', 'ogg'])],
      ['flac', await ffmpegGenerate(tone, ['-c:a', 'flac', '-f', 'flac'])],
      ['mp4', await ffmpegGenerate(tone, ['-c:a', 'aac', '-movflags', 'frag_keyframe+empty_moov', '-f', 'mp4'])],
      ['matroska', await ffmpegGenerate(tone, ['-c:a', 'libopus', '-f', 'webm'])],
    ];
    for (const [expected, bytes] of made) assert.equal(sniffContainer(bytes)?.name, expected, expected);
  });

  it('refuses playlists, concat lists, SDP, images, text and truncated magic', async () => {
    const png = await ffmpegGenerate('color=c=red:s=8x8:d=0.1', ['-frames:v', '1', '-c:v', 'png', '-f', 'image2pipe']);
    for (const text of ['#EXTM3U\n#EXTINF:10,\nfile:///etc/passwd\n', 'ffconcat version 1.0\nfile /etc/passwd\n', "file '/etc/passwd'\n", 'v=0\r\no=- 0 0 IN IP4 127.0.0.1\r\n', 'concat:/a|/b', '<html></html>', 'RIFF', '']) {
      assert.equal(sniffContainer(Buffer.from(text)), undefined, JSON.stringify(text));
    }
    assert.equal(sniffContainer(png), undefined, 'png');
    assert.equal(sniffContainer(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10])), undefined, 'jpeg');
  });
});

describe('checkMediaFormat', () => {
  const fine = { sampleRate: 16000, channels: 1, bitsPerSample: 16, durationSec: 4 };

  it('accepts every parameter inside its range, the ends included', () => {
    checkMediaFormat(fine);
    checkMediaFormat({ sampleRate: MEDIA_LIMITS.minSampleRate, channels: MEDIA_LIMITS.maxChannels, bitsPerSample: 64, durationSec: MEDIA_LIMITS.maxDurationSec });
    checkMediaFormat({ sampleRate: MEDIA_LIMITS.maxSampleRate, channels: 1 });
  });

  it('refuses each parameter outside its range with AUDIO_FORMAT_OUT_OF_RANGE naming it', () => {
    const cases: [Partial<typeof fine>, RegExp][] = [
      [{ sampleRate: 20_000_003 }, /sample rate/],
      [{ sampleRate: 80_000_001 }, /sample rate/],
      [{ sampleRate: 0xffffffff }, /sample rate/],
      [{ sampleRate: 1 }, /sample rate/],
      [{ sampleRate: 16000.5 }, /sample rate/],
      [{ channels: 0 }, /channels/],
      [{ channels: 65535 }, /channels/],
      [{ bitsPerSample: 0 }, /bit/],
      [{ bitsPerSample: 65 }, /bit/],
      [{ durationSec: 304_992 }, /duration|lasts/],
      [{ durationSec: Number.NaN }, /duration|lasts/],
    ];
    for (const [change, message] of cases) {
      assert.throws(() => checkMediaFormat({ ...fine, ...change }), (error: unknown) => isTtsError('AUDIO_FORMAT_OUT_OF_RANGE')(error) && message.test((error as Error).message), JSON.stringify(change));
    }
  });
});

describe('ffmpeg on user bytes', () => {
  let work: string;
  let secret: string;
  before(async () => {
    work = await mkdtemp(path.join(tmpdir(), 'media-input-'));
    secret = path.join(work, 'secret.wav');
    await writeFile(secret, encodeWav({ samples: new Float32Array(16000).fill(0.25), sampleRate: 16000 }));
  });
  after(() => rm(work, { recursive: true, force: true }));

  it('never follows a playlist or concat list to another file, from a file or from a pipe', async () => {
    const lists = [
      `#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10.0,\nfile://${secret}\n#EXT-X-ENDLIST\n`,
      `#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10.0,\n${secret}\n#EXT-X-ENDLIST\n`,
      `ffconcat version 1.0\nfile '${secret}'\n`,
    ];
    for (const [i, list] of lists.entries()) {
      const file = path.join(work, `list-${i}.m3u8`);
      await writeFile(file, list);
      for (const source of [{ path: file }, Buffer.from(list)]) {
        await assert.rejects(probeAudio(source), isTtsError('AUDIO_CONTAINER_UNSUPPORTED'));
        await assert.rejects(decodeWithFfmpeg(source), isTtsError('AUDIO_CONTAINER_UNSUPPORTED'));
      }
    }
  });

  it('probes a repeated tiny ADTS frame quickly and refuses its absurd duration', async () => {
    const adts = await ffmpegGenerate('anullsrc=r=8000:cl=mono', ['-t', '1', '-c:a', 'aac', '-b:a', '8k', '-f', 'adts']);
    const frame = adts.subarray(adts.length - 11);
    assert.equal(frame[0], 0xff);
    const file = path.join(work, 'tiny.aac');
    await writeFile(file, Buffer.concat(Array.from({ length: Math.floor((20 * 1024 * 1024) / frame.length) }, () => frame)));
    const started = performance.now();
    await assert.rejects(probeAudio({ path: file }), isTtsError('AUDIO_FORMAT_OUT_OF_RANGE'));
    assert.ok(performance.now() - started < 5000, `${Math.round(performance.now() - started)} ms`);
  });
});
