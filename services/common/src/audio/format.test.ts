import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TtsError } from '../errors/tts-error.js';
import { AUDIO_FORMATS, contentTypeOf, nearestSupportedRate, outputSampleRate, parseAudioFormat } from './format.js';

function assertTtsError(fn: () => unknown, code: string, loc?: readonly (string | number)[]): void {
  assert.throws(fn, (error: unknown) => {
    assert.ok(error instanceof TtsError, `expected TtsError, got ${String(error)}`);
    assert.equal(error.code, code);
    if (loc !== undefined) assert.deepEqual(error.loc, loc);
    return true;
  });
}

describe('contentTypeOf', () => {
  it('maps every format to its MIME type', () => {
    assert.deepEqual(
      AUDIO_FORMATS.map((f) => [f, contentTypeOf(f)]),
      [['wav', 'audio/wav'], ['pcm', 'audio/pcm'], ['mp3', 'audio/mpeg'], ['opus', 'audio/ogg'], ['aac', 'audio/aac'], ['flac', 'audio/flac'], ['ulaw', 'audio/basic'], ['alaw', 'audio/x-alaw-basic']],
    );
  });
});

describe('parseAudioFormat', () => {
  it('accepts names in any case', () => {
    assert.equal(parseAudioFormat('MP3'), 'mp3');
    assert.equal(parseAudioFormat('Opus'), 'opus');
    assert.equal(parseAudioFormat(' flac '), 'flac');
  });

  it('rejects unknown names with TTS_FORMAT_UNSUPPORTED at loc', () => {
    assertTtsError(() => parseAudioFormat('ogg', ['body', 'response_format']), 'TTS_FORMAT_UNSUPPORTED', ['body', 'response_format']);
    assertTtsError(() => parseAudioFormat(''), 'TTS_FORMAT_UNSUPPORTED', []);
    assertTtsError(() => parseAudioFormat('toString'), 'TTS_FORMAT_UNSUPPORTED');
  });
});

describe('outputSampleRate', () => {
  it('defaults pcm to 24000 whatever the native rate', () => {
    assert.equal(outputSampleRate('pcm', 22050), 24000);
    assert.equal(outputSampleRate('pcm', 16000, 0), 24000);
  });

  it('defaults opus to the libopus rate nearest the native one (no needless upsampling)', () => {
    assert.equal(outputSampleRate('opus', 24000), 24000);
    assert.equal(outputSampleRate('opus', 16000), 16000);
    assert.equal(outputSampleRate('opus', 22050), 24000);
    assert.equal(outputSampleRate('opus', 48000), 48000);
  });

  it('defaults wav/flac/mp3/aac to the native rate when the codec takes it', () => {
    for (const format of ['wav', 'flac', 'mp3', 'aac'] as const) {
      assert.equal(outputSampleRate(format, 22050), 22050, format);
      assert.equal(outputSampleRate(format, 24000), 24000, format);
    }
    assert.equal(outputSampleRate('wav', 17000), 17000);
  });

  it('defaults to the nearest supported rate otherwise', () => {
    assert.equal(outputSampleRate('mp3', 20000), 22050);
    assert.equal(outputSampleRate('aac', 13000), 12000);
    assert.equal(outputSampleRate('wav', 96000), 48000);
    assert.equal(outputSampleRate('flac', 4000), 8000);
    assert.equal(nearestSupportedRate('opus', 22050), 24000);
  });

  it('puts the telephony formats at 8000 Hz, whatever the native rate, and refuses any other', () => {
    for (const format of ['ulaw', 'alaw'] as const) {
      assert.equal(outputSampleRate(format, 22050), 8000, format);
      assert.equal(outputSampleRate(format, 16000, 8000), 8000, format);
      assertTtsError(() => outputSampleRate(format, 16000, 16000, ['query', 'output_format']), 'TTS_SAMPLE_RATE_INVALID', ['query', 'output_format']);
    }
  });

  it('returns a requested rate the format takes', () => {
    assert.equal(outputSampleRate('pcm', 24000, 16000), 16000);
    assert.equal(outputSampleRate('wav', 24000, 44100), 44100);
    assert.equal(outputSampleRate('flac', 24000, 17000), 17000);
    assert.equal(outputSampleRate('opus', 24000, 12000), 12000);
    assert.equal(outputSampleRate('mp3', 24000, 11025), 11025);
  });

  it('rejects rates out of range or not taken by the codec with TTS_SAMPLE_RATE_INVALID', () => {
    assertTtsError(() => outputSampleRate('pcm', 24000, 7999), 'TTS_SAMPLE_RATE_INVALID');
    assertTtsError(() => outputSampleRate('wav', 24000, 48001), 'TTS_SAMPLE_RATE_INVALID');
    assertTtsError(() => outputSampleRate('wav', 24000, 16000.5), 'TTS_SAMPLE_RATE_INVALID');
    assertTtsError(() => outputSampleRate('opus', 24000, 22050, ['body', 'sample_rate']), 'TTS_SAMPLE_RATE_INVALID', ['body', 'sample_rate']);
    assertTtsError(() => outputSampleRate('mp3', 24000, 20000), 'TTS_SAMPLE_RATE_INVALID');
    assertTtsError(() => outputSampleRate('aac', 24000, 17000), 'TTS_SAMPLE_RATE_INVALID');
    assertTtsError(() => outputSampleRate('flac', 24000, -16000), 'TTS_SAMPLE_RATE_INVALID');
  });
});
