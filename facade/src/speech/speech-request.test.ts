import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AudioEncoding, type Voice } from '@tts/proto/synthesis';
import { TtsError } from '@tts/common';
import type { ClusterSnapshot } from '../cluster/cluster.js';
import type { Caller } from '../middleware/access.js';
import type { UploadedFile } from '../middleware/uploads.js';
import { elevenLabsSettingsOf, formBoolean, openAiSettingsOf, parseOutputFormat, speechRequestOf, ttsSettingsOf, webSettingsOf, type SpeechContext } from './speech-request.js';

const refusedWith = (code: string, loc?: readonly (string | number)[]) => (e: unknown): boolean => {
  assert.ok(e instanceof TtsError, String(e));
  assert.equal(e.code, code);
  if (loc !== undefined) assert.deepEqual(e.loc, loc);
  return true;
};

const upload: UploadedFile = { field: 'ref_audio', filename: 'me.wav', mimeType: 'audio/wav', path: '/tmp/upload-1', sizeBytes: 1000 };

describe('speech settings of each body', () => {
  it('TtsRequest: what the body names, the rest left for a preset or the defaults; the preset supplies the whole voice setup', () => {
    const named = ttsSettingsOf({ text: 'Hi.', voice: 'flite:slt', engine: 'flite', speed: 1.5, format: 'opus', sample_rate: 16000, language: 'en-GB', normalize: false, timestamps: true, mode: 'clone', consent_confirmed: true, reference_id: 'ref_abcdefgh', preset_id: 'pst_abcdefgh' });
    assert.equal(named.voice, 'flite:slt');
    assert.equal(named.engine, 'flite');
    assert.equal(named.speed, 1.5);
    assert.equal(named.format, 'opus');
    assert.equal(named.sampleRate, 16000);
    assert.equal(named.language, 'en-GB');
    assert.equal(named.rawText, true);
    assert.equal(named.wordTimings, true);
    assert.equal(named.mode, 'clone');
    assert.equal(named.consentConfirmed, true);
    assert.equal(named.referenceId, 'ref_abcdefgh');
    assert.deepEqual(named.preset, { id: 'pst_abcdefgh', supplies: ['voice', 'engine', 'speed', 'format', 'reference'] });
    assert.equal(named.fields.encoding, 'format');

    const bare = ttsSettingsOf({ text: 'Hi.' });
    assert.equal(bare.voice, undefined);
    assert.equal(bare.format, undefined, 'unnamed, so a preset can fill it');
    assert.equal(bare.speed, undefined);
    assert.equal(bare.mode, 'auto');
    assert.equal(bare.consentConfirmed, null);
    assert.equal(bare.rawText, false);
    assert.equal(bare.preset, undefined);
  });

  it('the TtsRequest form: text values read, the uploaded clip kept', () => {
    const s = ttsSettingsOf({ text: 'Hi.', mode: 'clone', consent_confirmed: 'yes', format: 'mp3' }, upload);
    assert.equal(s.consentConfirmed, true);
    assert.equal(s.mode, 'clone');
    assert.equal(s.format, 'mp3');
    assert.equal(s.upload, upload);
    assert.equal(s.referenceId, undefined);
    assert.equal(ttsSettingsOf({ text: 'Hi.', consent_confirmed: 'off' }).consentConfirmed, false);
  });

  it("OpenAI's SpeechRequest: mp3 unless asked, the model kept to name the engine, word timings for SSE, no mode", () => {
    const s = openAiSettingsOf({ model: 'tts-1', input: 'Hi.', voice: 'alloy' });
    assert.equal(s.format, 'mp3');
    assert.equal(s.model, 'tts-1');
    assert.equal(s.engine, undefined);
    assert.equal(s.voice, 'alloy');
    assert.equal(s.mode, null);
    assert.equal(s.consentConfirmed, null);
    assert.equal(s.wordTimings, false);
    assert.equal(s.fields.text, 'input');
    assert.equal(s.fields.engine, 'model');
    const sse = openAiSettingsOf({ model: 'flite', input: 'Hi.', voice: 'flite:slt', response_format: 'wav', stream_format: 'sse', instructions: 'Calm.', speed: 2 });
    assert.equal(sse.format, 'wav');
    assert.equal(sse.wordTimings, true);
    assert.equal(sse.instructions, 'Calm.');
    assert.equal(sse.speed, 2);
  });

  it('the web form: speed and consent read from text, empty fields unnamed, the preset supplies voice and speed only', () => {
    const s = webSettingsOf({ text: 'Hi.', speed: '1.25', consent_confirmed: 'true', reference_id: 'ref_abcdefgh', preset_id: 'pst_abcdefgh' });
    assert.equal(s.speed, 1.25);
    assert.equal(s.consentConfirmed, true);
    assert.equal(s.referenceId, 'ref_abcdefgh');
    assert.deepEqual(s.preset, { id: 'pst_abcdefgh', supplies: ['voice', 'speed'] });
    const empty = webSettingsOf({ text: 'Hi.', speed: '', reference_id: '', preset_id: '' });
    assert.equal(empty.speed, undefined);
    assert.equal(empty.referenceId, undefined);
    assert.equal(empty.preset, undefined);
    assert.equal(empty.mode, 'auto');
    assert.throws(() => webSettingsOf({ text: 'Hi.', speed: '9' }), refusedWith('TTS_SPEED_OUT_OF_RANGE', ['body', 'speed']));
  });

  it("ElevenLabs' body, path and query: mp3_44100_128 unless asked, the voice_id as voice, speed from voice_settings, normalization off by the body or latency level 4", () => {
    const s = elevenLabsSettingsOf('flite:slt', { text: 'Hi.' }, {}, false);
    assert.deepEqual([s.voice, s.format, s.sampleRate, s.bitrateKbps, s.speed, s.rawText, s.wordTimings, s.mode, s.consentConfirmed], ['flite:slt', 'mp3', 44100, 128, undefined, false, false, null, null]);
    assert.deepEqual([s.fields.voice, s.fields.engine, s.fields.encoding], ['voice_id', 'model_id', 'output_format']);
    const named = elevenLabsSettingsOf('alloy', { text: 'Hi.', model_id: 'eleven_flash_v2_5', language_code: 'de', voice_settings: { speed: 1.1, stability: 0.2 }, apply_text_normalization: 'off' }, { output_format: 'ulaw_8000' }, true);
    assert.deepEqual([named.model, named.language, named.speed, named.format, named.sampleRate, named.bitrateKbps, named.rawText, named.wordTimings], ['eleven_flash_v2_5', 'de', 1.1, 'ulaw', 8000, undefined, true, true]);
    assert.equal(elevenLabsSettingsOf('v', { text: 'Hi.' }, { optimize_streaming_latency: 4 }, false).rawText, true);
    assert.equal(elevenLabsSettingsOf('v', { text: 'Hi.', apply_text_normalization: 'on' }, { optimize_streaming_latency: 4 }, false).rawText, false);
    assert.equal(elevenLabsSettingsOf('v', { text: 'Hi.', model_id: null, voice_settings: null }, { optimize_streaming_latency: 3 }, false).rawText, false);
  });

  it('output_format: codec_rate[_kbps] into format, rate and bit rate, refused with the catalogue code naming the query', () => {
    assert.deepEqual(parseOutputFormat('pcm_22050'), { format: 'pcm', sampleRate: 22050 });
    assert.deepEqual(parseOutputFormat('mp3_22050_32'), { format: 'mp3', sampleRate: 22050, bitrateKbps: 32 });
    assert.deepEqual(parseOutputFormat('opus_48000_192'), { format: 'opus', sampleRate: 48000, bitrateKbps: 192 });
    assert.deepEqual(parseOutputFormat('alaw_8000'), { format: 'alaw', sampleRate: 8000 });
    const loc = ['query', 'output_format'];
    for (const [value, code] of [['mp4_44100', 'TTS_FORMAT_UNSUPPORTED'], ['mp3', 'TTS_FORMAT_UNSUPPORTED'], ['MP3_44100_128', 'TTS_FORMAT_UNSUPPORTED'], ['ulaw_16000', 'TTS_SAMPLE_RATE_INVALID'], ['mp3_20000_64', 'TTS_SAMPLE_RATE_INVALID'], ['pcm_16000_64', 'VALIDATION_FAILED'], ['mp3_44100_999', 'VALIDATION_FAILED'], ['toString_8000', 'TTS_FORMAT_UNSUPPORTED']] as const) {
      assert.throws(() => parseOutputFormat(value), refusedWith(code, loc), value);
    }
  });

  it('form booleans: true, 1, on and yes are true; absent is undefined', () => {
    assert.deepEqual(['true', '1', 'ON', 'yes', 'false', '0', 'no', '', undefined, true].map(formBoolean), [true, true, true, true, false, false, false, undefined, undefined, true]);
  });
});

describe('speechRequestOf', () => {
  const voice = (id: string, gender: string): Voice => ({ id, name: id, engine: id.split(':')[0]!, language: 'en-US', languages: ['en-US'], gender, sampleRate: 16000, quality: 'medium', loaded: true, description: '' });
  const snapshot: ClusterSnapshot = { nodes: [], ready: [], voices: [voice('flite:slt', 'female'), voice('flite:rms', 'male'), voice('espeak:en-us', 'male')], engines: ['espeak', 'flite'], knownEngines: ['espeak', 'flite'], fetchedAtMs: 0 };
  /** A context that counts its cluster reads. */
  const context = (over: Partial<SpeechContext> = {}) => {
    const reads = { n: 0 };
    const ctx: SpeechContext = { lexicon: [], defaultVoice: 'flite:slt', snapshot: async () => (reads.n++, snapshot), ...over };
    return { ctx, reads };
  };
  const key = { method: 'api_key' } as Caller;
  const browser = { method: 'challenge' } as Caller;
  const openAiBody = { model: 'tts-1', input: 'Hi.', voice: 'alloy' } as const;

  it('applies the defaults (wav, speed 1, the voice native rate, normalized text, no timings) without reading the cluster', async () => {
    const { ctx, reads } = context();
    const { speech, cloning } = await speechRequestOf(key, 'Hi.', ttsSettingsOf({ text: 'Hi.' }), ctx);
    assert.deepEqual(
      { voice: speech.voice, engine: speech.engine, encoding: speech.encoding, speed: speech.speed, sampleRate: speech.sampleRate, rawText: speech.rawText, wordTimings: speech.wordTimings, lexicon: speech.lexicon, watermarkPayload: speech.watermarkPayload },
      { voice: '', engine: '', encoding: AudioEncoding.AUDIO_ENCODING_WAV, speed: 1, sampleRate: 0, rawText: false, wordTimings: false, lexicon: [], watermarkPayload: 0 },
    );
    assert.equal(cloning, undefined);
    assert.equal(reads.n, 0, 'nothing named needs the cluster');
  });

  it('turns the format into the contract encoding once and carries the settings and the lexicon', async () => {
    const { ctx } = context({ lexicon: [{ word: 'GIF', ipa: 'dʒɪf', caseSensitive: true }] });
    const settings = openAiSettingsOf({ model: 'flite', input: 'Hi GIF.', voice: 'flite:rms', response_format: 'opus', speed: 0.5, sample_rate: 24000, instructions: 'Slowly.' });
    const { speech } = await speechRequestOf(key, 'Hi GIF.', settings, ctx);
    assert.equal(speech.encoding, AudioEncoding.AUDIO_ENCODING_OPUS);
    assert.deepEqual([speech.text, speech.voice, speech.engine, speech.speed, speech.sampleRate, speech.instructions], ['Hi GIF.', 'flite:rms', 'flite', 0.5, 24000, 'Slowly.']);
    assert.deepEqual(speech.lexicon.map((e) => [e.word, e.ipa]), [['GIF', 'dʒɪf']]);
  });

  it('refuses empty text and invalid SSML, naming the body field, before the cluster is read; plain text with angle brackets is text', async () => {
    const { ctx, reads } = context();
    await assert.rejects(speechRequestOf(key, ' \n\t', openAiSettingsOf(openAiBody), ctx), refusedWith('TTS_TEXT_EMPTY', ['body', 'input']));
    await assert.rejects(speechRequestOf(key, '<speak><blink>Hi</blink></speak>', openAiSettingsOf(openAiBody), ctx), refusedWith('SSML_INVALID'));
    assert.equal(reads.n, 0);
    await speechRequestOf(key, 'a < b > c', ttsSettingsOf({ text: 'a < b > c' }), ctx);
    await speechRequestOf(key, '<speak>Hi <break time="200ms"/> there.</speak>', ttsSettingsOf({ text: 'x' }), ctx);
  });

  it('resolves the voice once: an OpenAI model to its engine (404 for none), an OpenAI name within it, a bare name through the cluster', async () => {
    const { ctx, reads } = context();
    const alloy = await speechRequestOf(key, 'Hi.', openAiSettingsOf(openAiBody), ctx);
    assert.deepEqual([alloy.speech.voice, alloy.speech.engine], ['flite:slt', '']);
    assert.equal(reads.n, 1, 'one read for the model and the voice');
    const ash = await speechRequestOf(key, 'Hi.', openAiSettingsOf({ ...openAiBody, model: 'espeak-ng', voice: 'ash' }), ctx);
    assert.deepEqual([ash.speech.voice, ash.speech.engine], ['espeak:en-us', 'espeak']);
    await assert.rejects(speechRequestOf(key, 'Hi.', openAiSettingsOf({ ...openAiBody, model: 'nope' }), ctx), refusedWith('TTS_MODEL_NOT_FOUND', ['body', 'model']));
    const eleven = await speechRequestOf(key, 'Hi.', elevenLabsSettingsOf('alloy', { text: 'Hi.', model_id: 'eleven_multilingual_v2' }, { output_format: 'mp3_44100_192' }, false), ctx);
    assert.deepEqual([eleven.speech.voice, eleven.speech.engine, eleven.speech.encoding, eleven.speech.sampleRate, eleven.speech.bitrateKbps], ['flite:slt', '', AudioEncoding.AUDIO_ENCODING_MP3, 44100, 192], "ElevenLabs' model ids name no engine");
    await assert.rejects(speechRequestOf(key, 'Hi.', elevenLabsSettingsOf('alloy', { text: 'Hi.', model_id: 'nope' }, {}, false), ctx), refusedWith('TTS_MODEL_NOT_FOUND', ['body', 'model_id']));
    const bare = await speechRequestOf(key, 'Hi.', ttsSettingsOf({ text: 'Hi.', voice: 'nova' }), ctx);
    assert.equal(bare.speech.voice, 'flite:slt', 'an OpenAI name on the REST API too');
  });

  it('with mustExist (jobs), a voice no ready node has is TTS_VOICE_NOT_FOUND naming the field; a bare name some voice ends with passes', async () => {
    const { ctx } = context({ mustExist: true });
    await assert.rejects(speechRequestOf(key, 'Hi.', webSettingsOf({ text: 'Hi.', voice: 'flite:nobody' }), ctx), refusedWith('TTS_VOICE_NOT_FOUND', ['body', 'voice']));
    assert.equal((await speechRequestOf(key, 'Hi.', webSettingsOf({ text: 'Hi.', voice: 'RMS' }), ctx)).speech.voice, 'RMS');
    const { ctx: sync } = context();
    assert.equal((await speechRequestOf(key, 'Hi.', webSettingsOf({ text: 'Hi.', voice: 'flite:nobody' }), sync)).speech.voice, 'flite:nobody', 'a synchronous request leaves it to the node');
  });

  it('reads whether it clones: a reference (or an upload) in auto or clone mode; none in preset mode; clone without one is refused; a stored clip needs an owner', async () => {
    const { ctx } = context();
    const of = async (caller: Caller, body: Parameters<typeof ttsSettingsOf>[0], file?: UploadedFile) => (await speechRequestOf(caller, 'Hi.', ttsSettingsOf(body, file), ctx)).cloning;
    assert.deepEqual(await of(key, { text: 'Hi.', reference_id: 'ref_abcdefgh' }), { referenceId: 'ref_abcdefgh' });
    assert.equal(await of(key, { text: 'Hi.', reference_id: 'ref_abcdefgh', mode: 'preset' }), undefined);
    assert.deepEqual(await of(browser, { text: 'Hi.', mode: 'clone', consent_confirmed: 'true' }, upload), { upload }, 'an uploaded clip needs no owner');
    await assert.rejects(of(key, { text: 'Hi.', mode: 'clone' }), refusedWith('VALIDATION_FAILED', ['body', 'reference_id']));
    await assert.rejects(of(browser, { text: 'Hi.', reference_id: 'ref_abcdefgh' }), refusedWith('REFERENCE_NOT_FOUND', ['body', 'reference_id']));
  });
});
