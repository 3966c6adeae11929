import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TtsError } from '@tts/common';
import { durationSec } from './pcm.js';
import { decodeWithFfmpeg, probeAudio } from './probe.js';
import { ffmpegGenerate, toneAmplitude, zeroCrossingRate } from './testing.js';

function isCode(code: string): (error: unknown) => boolean {
  return (error) => {
    assert.ok(error instanceof TtsError, `expected TtsError, got ${String(error)}`);
    assert.equal(error.code, code);
    return true;
  };
}
const isDecodeFailure = isCode('AUDIO_DECODE_FAILED');

describe('decodeWithFfmpeg', () => {
  it('decodes a stereo mp3 to mono (the channel mean) at its native rate', async () => {
    const mp3 = await ffmpegGenerate('aevalsrc=0.4*sin(2*PI*500*t)|0.2*sin(2*PI*500*t):s=44100:d=1', ['-c:a', 'libmp3lame', '-b:a', '128k', '-f', 'mp3']);
    const audio = await decodeWithFfmpeg(mp3);
    assert.equal(audio.sampleRate, 44100);
    assert.ok(Math.abs(durationSec(audio) - 1) < 0.1, `duration ${durationSec(audio)}`);
    // Mean of 0.4 and 0.2 is 0.3 (LAME's CBR output is about 0.45 dB quieter); ffmpeg's own -ac 1 gives 0.42.
    assert.ok(Math.abs(toneAmplitude(audio, 500) - 0.29) < 0.015, `mixdown amplitude ${toneAmplitude(audio, 500)}`);
  });

  it('resamples to the requested rate', async () => {
    const adts = await ffmpegGenerate('sine=frequency=1000:sample_rate=48000:duration=1', ['-c:a', 'aac', '-f', 'adts']);
    const audio = await decodeWithFfmpeg(adts, { sampleRate: 16000 });
    assert.equal(audio.sampleRate, 16000);
    assert.ok(Math.abs(zeroCrossingRate(audio) - 2000) < 20, `zero crossings ${zeroCrossingRate(audio)}/s`);
  });

  it('reads an MP4/M4A container through the pipe', async () => {
    const m4a = await ffmpegGenerate('sine=frequency=1000:sample_rate=24000:duration=0.5', ['-c:a', 'aac', '-movflags', 'frag_keyframe+empty_moov', '-f', 'mp4']);
    const audio = await decodeWithFfmpeg(m4a);
    assert.equal(audio.sampleRate, 24000);
    assert.ok(Math.abs(durationSec(audio) - 0.5) < 0.1);
  });

  it('refuses garbage and empty input, whose bytes name no accepted container, with AUDIO_CONTAINER_UNSUPPORTED', async () => {
    await assert.rejects(decodeWithFfmpeg(Buffer.from('this is not audio'.repeat(100))), isCode('AUDIO_CONTAINER_UNSUPPORTED'));
    await assert.rejects(decodeWithFfmpeg(new Uint8Array(0)), isCode('AUDIO_CONTAINER_UNSUPPORTED'));
  });

  it('rejects an accepted container it cannot decode with AUDIO_DECODE_FAILED, ffmpeg stderr only in the cause', async () => {
    await assert.rejects(decodeWithFfmpeg(Buffer.concat([Buffer.from('OggS'), Buffer.alloc(2000, 0x41)])), (error: unknown) => {
      assert.ok(isDecodeFailure(error) && error instanceof TtsError);
      assert.equal(error.message, 'The audio could not be decoded.');
      assert.ok(error.cause instanceof Error && error.cause.message.length > 0);
      return true;
    });
  });
});

describe('probeAudio', () => {
  it('reports container, codec, rate, channels and duration', async () => {
    const flac = await ffmpegGenerate('sine=frequency=300:sample_rate=32000:duration=1.5', ['-ac', '2', '-c:a', 'flac', '-f', 'flac']);
    const probe = await probeAudio(flac);
    assert.deepEqual({ ...probe, durationSec: Math.round(probe.durationSec * 1000) / 1000 }, {
      formatName: 'flac',
      codec: 'flac',
      sampleRate: 32000,
      channels: 2,
      durationSec: 1.5,
    });
  });

  it('refuses garbage and images with AUDIO_CONTAINER_UNSUPPORTED, and a container without audio with AUDIO_DECODE_FAILED', async () => {
    await assert.rejects(probeAudio(Buffer.from('definitely not audio')), isCode('AUDIO_CONTAINER_UNSUPPORTED'));
    const png = await ffmpegGenerate('color=c=red:s=8x8:d=0.1', ['-frames:v', '1', '-c:v', 'png', '-f', 'image2pipe']);
    await assert.rejects(probeAudio(png), isCode('AUDIO_CONTAINER_UNSUPPORTED'));
    const video = await ffmpegGenerate('color=c=red:s=8x8:d=0.2', ['-c:v', 'libvpx', '-f', 'webm']);
    await assert.rejects(probeAudio(video), isDecodeFailure);
  });
});
