import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Voice } from '@tts/proto/synthesis';
import { TtsError, elevenLabsErrorOf } from '@tts/common';
import { elevenLabsVoiceOf, searchVoices } from './elevenlabs-voices.js';

const voice = (id: string, language: string, gender: string, description = ''): Voice => ({ id, name: id.split(':')[1]!, engine: id.split(':')[0]!, language, languages: [language], gender, sampleRate: 16000, quality: 'medium', loaded: true, description });
const VOICES = [voice('flite:slt', 'en-US', 'female', 'US English, clear'), voice('espeak:de', 'de-DE', 'male'), voice('flite:awb', 'en-GB', 'male', 'Scottish'), voice('espeak:en-us', 'en-US', 'male')];

describe('ElevenLabs voices', () => {
  it('describes a platform voice as a premade ElevenLabs voice whose voice_id is the platform id', () => {
    const v = elevenLabsVoiceOf(VOICES[0]!);
    assert.equal(v['voice_id'], 'flite:slt');
    assert.equal(v['category'], 'premade');
    assert.deepEqual(v['labels'], { language: 'en-US', gender: 'female', engine: 'flite', quality: 'medium', sample_rate: '16000' });
    assert.deepEqual(v['verified_languages'], [{ language: 'en', model_id: 'flite', locale: 'en-US' }]);
  });

  it('searches by text, language prefix, gender and ids, sorted by id, a page at a time with tokens it gave', () => {
    const ids = (q: Parameters<typeof searchVoices>[1]): string[] => searchVoices(VOICES, q).voices.map((v) => v.id);
    assert.deepEqual(ids({}), ['espeak:de', 'espeak:en-us', 'flite:awb', 'flite:slt']);
    assert.deepEqual(ids({ search: 'SCOT' }), ['flite:awb']);
    assert.deepEqual(ids({ language: ['en'], gender: 'male' }), ['espeak:en-us', 'flite:awb']);
    assert.deepEqual(ids({ voiceIds: ['FLITE:SLT', 'espeak:de'] }), ['espeak:de', 'flite:slt']);
    const first = searchVoices(VOICES, { pageSize: 3 });
    assert.deepEqual([first.voices.length, first.totalCount], [3, 4]);
    const second = searchVoices(VOICES, { pageSize: 3, nextPageToken: first.nextPageToken! });
    assert.deepEqual([second.voices.map((v) => v.id), second.nextPageToken], [['flite:slt'], undefined]);
    assert.throws(() => searchVoices(VOICES, { nextPageToken: Buffer.from('voices:x').toString('base64url') }), (e: unknown) => e instanceof TtsError && e.code === 'VALIDATION_FAILED');
  });

  it("maps catalogue codes onto ElevenLabs' type and code", () => {
    assert.deepEqual(elevenLabsErrorOf('AUTH_KEY_MISSING'), { type: 'authentication_error', code: 'invalid_api_key' });
    assert.deepEqual(elevenLabsErrorOf('TTS_VOICE_NOT_FOUND'), { type: 'validation_error', code: 'voice_not_found' });
    assert.deepEqual(elevenLabsErrorOf('TTS_CONCURRENCY_LIMIT'), { type: 'rate_limit_error', code: 'concurrent_limit_exceeded' });
    assert.deepEqual(elevenLabsErrorOf('TTS_OVERLOADED'), { type: 'service_unavailable', code: 'tts_overloaded' });
    assert.deepEqual(elevenLabsErrorOf('TTS_MODEL_NOT_FOUND'), { type: 'not_found', code: 'model_not_found' });
  });
});
