/**
 * The ElevenLabs-compatible HTTP surface (issue 31 item 2), driven with the official
 * `@elevenlabs/elevenlabs-js` client pointed at the platform and with raw HTTP: text-to-speech as a
 * file, a stream, with character timings and streamed with them, the voice list and search; every
 * output format decoded (pcm at each rate, mp3 and opus at their rates and bit rates, wav, and the
 * G.711 telephony formats with ffmpeg's own mu-law and A-law decoders); the key in `xi-api-key`;
 * the refusals in ElevenLabs' error shape with the catalogue's codes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ElevenLabsClient, ElevenLabsError } from '@elevenlabs/elevenlabs-js';
import { rms } from '@tts/inference-node/testing';
import { decodeRawAudio, inspectClip } from './support/audio.js';
import { startPlatform, type TestPlatform } from './support/platform.js';

const VOICE = 'flite:slt';
const TWO_SENTENCES = 'The quick brown fox jumps over the lazy dog. Then it runs into the forest.';

interface Alignment { characters: string[]; character_start_times_seconds: number[]; character_end_times_seconds: number[] }
interface Timestamped { audio_base64: string; alignment: Alignment | null; normalized_alignment: Alignment | null }
interface ElevenLabsErrorBody { detail: { type: string; code: string; status: string; message: string; param: string | null; request_id: string; platform_code: string } }
interface ValidationBody { detail: { loc: (string | number)[]; msg: string; type: string }[]; code: string }

/** The bytes of a web stream. */
async function bytesOf(stream: ReadableStream<Uint8Array>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

/** Characters in order, each span non-empty or zero, none before the previous one's end, within `seconds`. */
function assertAlignment(a: Alignment | null, text: string, seconds: number, what: string): asserts a is Alignment {
  assert.ok(a, `${what}: alignment`);
  assert.equal(a.characters.join(''), text, `${what}: the characters are the text's`);
  assert.equal(a.character_start_times_seconds.length, a.characters.length);
  assert.equal(a.character_end_times_seconds.length, a.characters.length);
  a.characters.forEach((_, i) => {
    const start = a.character_start_times_seconds[i]!;
    const end = a.character_end_times_seconds[i]!;
    assert.ok(end >= start, `${what}: character ${i} ${start}-${end}`);
    if (i > 0) assert.ok(start >= a.character_end_times_seconds[i - 1]! - 1e-9, `${what}: character ${i} starts before ${i - 1} ends`);
  });
  assert.ok(a.character_end_times_seconds.at(-1)! <= seconds + 0.01, `${what}: within ${seconds} s`);
}

describe('ElevenLabs-compatible API', () => {
  let p: TestPlatform;
  let client: ElevenLabsClient;
  /** POST to an ElevenLabs route with the key in xi-api-key. */
  const post = (path: string, body: unknown, headers: Record<string, string> = { 'xi-api-key': p.apiKey }): Promise<Response> =>
    fetch(`${p.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

  before(async () => {
    p = await startPlatform({ node: { engines: ['flite'], defaultVoice: VOICE }, facade: { defaultVoice: VOICE } });
    client = new ElevenLabsClient({ apiKey: p.apiKey, baseUrl: p.url, maxRetries: 0 });
  });
  after(async () => {
    await p.stop();
  });

  test('client: textToSpeech.convert answers mp3 at the rate and bit rate of output_format (default mp3_44100_128)', async () => {
    for (const [format, rate, kbps] of [[undefined, 44100, 128], ['mp3_22050_32', 22050, 32], ['mp3_44100_192', 44100, 192]] as const) {
      const audio = await bytesOf(await client.textToSpeech.convert(VOICE, { text: TWO_SENTENCES, modelId: 'eleven_multilingual_v2', ...(format ? { outputFormat: format } : {}) }));
      const clip = await inspectClip(audio);
      assert.match(clip.codec, /^mp3/, String(format));
      assert.equal(clip.sampleRate, rate, String(format));
      assert.ok(clip.durationSec > 2.5 && clip.durationSec < 9, `${String(format)}: ${clip.durationSec} s`);
      assert.ok(clip.rms > 0.01, `${String(format)}: audible`);
      const measured = (audio.length * 8) / clip.durationSec / 1000;
      assert.ok(Math.abs(measured - kbps) / kbps < 0.2, `${String(format)}: ${measured.toFixed(1)} kbit/s, asked ${kbps}`);
    }
  });

  test('client: pcm at every rate, wav and opus decode to the same speech', async () => {
    const durations: number[] = [];
    for (const rate of [8000, 16000, 22050, 24000, 32000, 44100, 48000] as const) {
      const res = await client.textToSpeech.convert(VOICE, { text: 'Testing the telephone line.', outputFormat: `pcm_${rate}` }).withRawResponse();
      assert.equal(res.rawResponse.headers.get('content-type'), 'audio/pcm');
      assert.equal(res.rawResponse.headers.get('x-audio-sample-rate'), String(rate));
      const pcm = await bytesOf(res.data);
      const samples = await decodeRawAudio(pcm, 's16le', rate);
      assert.equal(samples.length, pcm.length / 2);
      assert.ok(rms(samples) > 0.01, `pcm_${rate} is audible`);
      durations.push(samples.length / rate);
    }
    // The same speech at every rate: the rate is the sample rate asked for, not a relabelled one.
    for (const d of durations) assert.ok(Math.abs(d - durations[0]!) < 0.05, `durations ${durations.map((x) => x.toFixed(3)).join(', ')}`);
    const wav = await inspectClip(await bytesOf(await client.textToSpeech.convert(VOICE, { text: 'Testing the telephone line.', outputFormat: 'wav_16000' })));
    assert.deepEqual([wav.codec, wav.sampleRate], ['pcm_s16le', 16000]);
    assert.ok(Math.abs(wav.durationSec - durations[0]!) < 0.05);
    const opus = await inspectClip(await bytesOf(await client.textToSpeech.convert(VOICE, { text: 'Testing the telephone line.', outputFormat: 'opus_48000_64' })));
    assert.deepEqual([opus.codec, opus.sampleRate], ['opus', 48000]);
    assert.ok(Math.abs(opus.durationSec - durations[0]!) < 0.1);
  });

  test('client: ulaw_8000 and alaw_8000 are headerless G.711 that ffmpeg decodes to the speech\'s duration and loudness', async () => {
    const text = 'Your call is important to us.';
    const reference = await decodeRawAudio(await bytesOf(await client.textToSpeech.convert(VOICE, { text, outputFormat: 'pcm_8000' })), 's16le', 8000);
    const seconds = reference.length / 8000;
    for (const [format, demuxer, other, type] of [['ulaw_8000', 'mulaw', 'alaw', 'audio/basic'], ['alaw_8000', 'alaw', 'mulaw', 'audio/x-alaw-basic']] as const) {
      const res = await client.textToSpeech.convert(VOICE, { text, outputFormat: format }).withRawResponse();
      assert.equal(res.rawResponse.headers.get('content-type'), type);
      assert.equal(res.rawResponse.headers.get('x-audio-sample-rate'), '8000');
      const bytes = await bytesOf(res.data);
      const samples = await decodeRawAudio(bytes, demuxer, 8000);
      assert.equal(samples.length, bytes.length, `${format}: one byte per sample, no header`);
      assert.ok(Math.abs(samples.length / 8000 - seconds) < 0.05, `${format}: ${samples.length / 8000} s, the 16-bit audio ${seconds} s`);
      // Decoded with its own law it is as loud as the 16-bit audio; with the other law it is not.
      const ratio = rms(samples) / rms(reference);
      assert.ok(ratio > 0.8 && ratio < 1.25, `${format}: loudness ${ratio.toFixed(3)} of the 16-bit audio`);
      const wrong = rms(await decodeRawAudio(bytes, other, 8000)) / rms(reference);
      assert.ok(wrong > 2 || wrong < 0.5, `${format} read as ${other}: loudness ${wrong.toFixed(3)}`);
    }
    // The telephony formats are the platform's: POST /api/tts and the OpenAI route take them too.
    const rest = await p.post('/api/tts', { text, voice: VOICE, format: 'alaw' });
    assert.deepEqual([rest.status, rest.headers.get('content-type'), rest.headers.get('x-audio-sample-rate')], [200, 'audio/x-alaw-basic', '8000']);
    assert.ok(Math.abs((await rest.arrayBuffer()).byteLength / 8000 - seconds) < 0.05);
    const openAi = await p.post('/v1/audio/speech', { model: 'tts-1', input: text, voice: 'alloy', response_format: 'ulaw' });
    assert.deepEqual([openAi.status, openAi.headers.get('content-type')], [200, 'audio/basic']);
    assert.ok(rms(await decodeRawAudio(Buffer.from(await openAi.arrayBuffer()), 'mulaw', 8000)) > 0.01);
  });

  test('client: textToSpeech.stream streams mp3 as sentences are ready', async () => {
    const chunks: Buffer[] = [];
    for await (const chunk of await client.textToSpeech.stream(VOICE, { text: TWO_SENTENCES, outputFormat: 'mp3_22050_32' })) chunks.push(Buffer.from(chunk));
    assert.ok(chunks.length > 1, `${chunks.length} chunks`);
    const clip = await inspectClip(Buffer.concat(chunks));
    assert.deepEqual([clip.codec.slice(0, 3), clip.sampleRate], ['mp3', 22050]);
    assert.ok(clip.durationSec > 2.5 && clip.rms > 0.01, `${clip.durationSec} s`);
  });

  test('client: convertWithTimestamps gives each character of the text its time, each word starting where the node says it does', async () => {
    const res = await client.textToSpeech.convertWithTimestamps(VOICE, { text: TWO_SENTENCES, outputFormat: 'pcm_24000' });
    const pcm = Buffer.from(res.audioBase64, 'base64');
    const seconds = pcm.length / 2 / 24000;
    assert.ok(seconds > 2.5);
    const alignment = res.alignment && { characters: res.alignment.characters, character_start_times_seconds: res.alignment.characterStartTimesSeconds, character_end_times_seconds: res.alignment.characterEndTimesSeconds };
    assertAlignment(alignment ?? null, TWO_SENTENCES, seconds, 'alignment');
    // The node's word timings for the same request (POST /api/tts with timestamps).
    const words = ((await (await p.post('/api/tts', { text: TWO_SENTENCES, voice: VOICE, format: 'pcm', sample_rate: 24000, timestamps: true })).json()) as { words: { word: string; start: number; end: number }[] }).words;
    assert.ok(words.length >= 14);
    let from = 0;
    for (const w of words) {
      const at = TWO_SENTENCES.indexOf(w.word.replace(/[^\p{L}\p{N}']/gu, ''), from);
      assert.ok(at >= 0, w.word);
      assert.ok(Math.abs(alignment!.character_start_times_seconds[at]! - w.start) < 0.002, `${w.word} starts at ${w.start}, its first character at ${alignment!.character_start_times_seconds[at]}`);
      from = at + 1;
    }
    const normalized = res.normalizedAlignment;
    assert.ok(normalized && normalized.characters.join('').replace(/\s+/g, ' ').includes('quick brown fox'), 'the words as read');
  });

  test('client: streamWithTimestamps: newline-delimited chunks whose audio is the file and whose characters are the text', async () => {
    const lines = [];
    for await (const chunk of await client.textToSpeech.streamWithTimestamps(VOICE, { text: TWO_SENTENCES, outputFormat: 'mp3_44100_64' })) lines.push(chunk);
    assert.ok(lines.length >= 2, `${lines.length} lines`);
    const clip = await inspectClip(Buffer.concat(lines.map((l) => Buffer.from(l.audioBase64, 'base64'))));
    assert.deepEqual([clip.codec.slice(0, 3), clip.sampleRate], ['mp3', 44100]);
    const joined: Alignment = { characters: [], character_start_times_seconds: [], character_end_times_seconds: [] };
    for (const l of lines) {
      if (!l.alignment) continue;
      joined.characters.push(...l.alignment.characters);
      joined.character_start_times_seconds.push(...l.alignment.characterStartTimesSeconds);
      joined.character_end_times_seconds.push(...l.alignment.characterEndTimesSeconds);
    }
    assertAlignment(joined, TWO_SENTENCES, clip.durationSec + 0.1, 'streamed alignment');
    assert.ok(lines.filter((l) => l.alignment).length >= 2, 'the characters come in more than one line');
  });

  test('raw HTTP: the stream of with-timestamps is application/x-ndjson, one JSON object per line', async () => {
    const res = await post(`/v1/text-to-speech/${VOICE}/stream/with-timestamps?output_format=pcm_16000`, { text: 'One line. Two lines.' });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/x-ndjson/);
    const body = await res.text();
    assert.ok(body.endsWith('\n'));
    const lines = body.trimEnd().split('\n').map((l) => JSON.parse(l) as Timestamped);
    assert.ok(lines.every((l) => typeof l.audio_base64 === 'string' && 'alignment' in l && 'normalized_alignment' in l));
    const pcm = Buffer.concat(lines.map((l) => Buffer.from(l.audio_base64, 'base64')));
    assertAlignment({ characters: lines.flatMap((l) => l.alignment?.characters ?? []), character_start_times_seconds: lines.flatMap((l) => l.alignment?.character_start_times_seconds ?? []), character_end_times_seconds: lines.flatMap((l) => l.alignment?.character_end_times_seconds ?? []) }, 'One line. Two lines.', pcm.length / 2 / 16000, 'raw stream');
  });

  test('voice_settings.speed, an OpenAI voice name as voice_id, and the use case\'s usage under the key', async () => {
    const seconds = async (speed: number, voice = VOICE): Promise<number> => (await bytesOf(await client.textToSpeech.convert(voice, { text: TWO_SENTENCES, outputFormat: 'pcm_16000', voiceSettings: { speed, stability: 0.3, similarityBoost: 0.8, style: 0.1, useSpeakerBoost: true } }))).length / 2 / 16000;
    const slow = await seconds(0.8);
    const fast = await seconds(1.2);
    assert.ok(slow / fast > 1.3 && slow / fast < 1.7, `0.8 vs 1.2: ${slow.toFixed(2)} s vs ${fast.toFixed(2)} s`);
    const alias = await client.textToSpeech.convert('alloy', { text: 'Hello.', outputFormat: 'pcm_16000', seed: 7, previousText: 'Before.', nextText: 'After.', languageCode: 'en', applyTextNormalization: 'off' }).withRawResponse();
    assert.equal(alias.rawResponse.headers.get('x-tts-voice'), VOICE, 'alloy maps onto the platform voice GET /v1/audio/voices names for it');
    await bytesOf(alias.data);
    await p.facade.deps.metering.drain();
    const usage = (await (await p.get('/api/usage/summary?endpoint=' + encodeURIComponent('POST /v1/text-to-speech/{voice_id}'))).json()) as { rows: { endpoint: string; requests: number; characters: number }[] };
    const row = usage.rows.find((r) => r.endpoint === 'POST /v1/text-to-speech/{voice_id}');
    assert.ok(row && row.requests >= 3 && row.characters >= 2 * TWO_SENTENCES.length, JSON.stringify(usage.rows));
  });

  test('client: voices.getAll and voices.search list the platform voices, search pages through them once each', async () => {
    const all = await client.voices.getAll();
    const slt = all.voices.find((v) => v.voiceId === VOICE);
    assert.ok(slt, 'flite:slt is listed');
    assert.equal(slt.category, 'premade');
    assert.equal(slt.labels?.['engine'], 'flite');
    assert.ok(slt.verifiedLanguages?.some((l) => l.language === 'en' && l.modelId === 'flite'));
    const listed = (await (await p.get('/v1/audio/voices')).json()) as { voices: { id: string }[] };
    assert.deepEqual(all.voices.map((v) => v.voiceId).sort(), listed.voices.map((v) => v.id).sort(), 'the voices of GET /v1/audio/voices');
    const seen: string[] = [];
    let token: string | undefined;
    do {
      const page = await client.voices.search({ pageSize: 2, ...(token ? { nextPageToken: token } : {}) });
      assert.equal(page.totalCount, all.voices.length);
      assert.ok(page.voices.length <= 2);
      seen.push(...page.voices.map((v) => v.voiceId));
      assert.equal(page.hasMore, page.nextPageToken !== undefined && page.nextPageToken !== null);
      token = page.nextPageToken ?? undefined;
    } while (token);
    assert.deepEqual(seen, [...all.voices.map((v) => v.voiceId)].sort());
    const found = await client.voices.search({ search: 'SLT', language: 'en' });
    assert.ok(found.voices.some((v) => v.voiceId === VOICE) && found.voices.every((v) => v.voiceId.toLowerCase().includes('slt') || (v.name ?? '').toLowerCase().includes('slt') || (v.description ?? '').toLowerCase().includes('slt')));
    assert.equal((await client.voices.search({ voiceIds: [VOICE] })).voices.length, 1);
    const bad = await fetch(`${p.url}/v2/voices?next_page_token=forged`, { headers: { 'xi-api-key': p.apiKey } });
    assert.equal(bad.status, 422);
    assert.equal(((await bad.json()) as ValidationBody).code, 'VALIDATION_FAILED');
  });

  test('the key: xi-api-key, X-API-Key or a bearer token; none or a wrong one is 401 in ElevenLabs\' shape', async () => {
    const path = `/v1/text-to-speech/${VOICE}?output_format=pcm_16000`;
    const presented: Record<string, string>[] = [{ 'xi-api-key': p.apiKey }, { 'x-api-key': p.apiKey }, { authorization: `Bearer ${p.apiKey}` }];
    for (const headers of presented) {
      assert.equal((await post(path, { text: 'Hi.' }, headers)).status, 200, JSON.stringify(Object.keys(headers)));
    }
    for (const [headers, code] of [[{}, 'AUTH_KEY_MISSING'], [{ 'xi-api-key': 'tts_0123456789abcdef_notarealsecretnotarealsecretnotarealsec' }, 'AUTH_KEY_INVALID']] as const) {
      const res = await post(path, { text: 'Hi.' }, headers);
      assert.equal(res.status, 401);
      const body = (await res.json()) as ElevenLabsErrorBody;
      assert.deepEqual([body.detail.status, body.detail.code, body.detail.type, body.detail.platform_code], ['invalid_api_key', 'invalid_api_key', 'authentication_error', code]);
      assert.equal(body.detail.request_id, res.headers.get('x-request-id'));
    }
    const sdk = new ElevenLabsClient({ apiKey: 'tts_0123456789abcdef_notarealsecretnotarealsecretnotarealsec', baseUrl: p.url, maxRetries: 0 });
    await assert.rejects(sdk.voices.getAll(), (e: unknown) => e instanceof ElevenLabsError && e.statusCode === 401);
    // xi-api-key is a way to present the key on the ElevenLabs operations only.
    const other = await p.post('/api/tts', { text: 'Hi.', voice: VOICE }, { 'x-api-key': '', 'xi-api-key': p.apiKey });
    assert.equal(other.status, 401);
  });

  test('bad input: unknown voice, output_format, model and text answer 4xx with stable codes, nothing synthesized', async () => {
    // The client raises its typed error with ElevenLabs' body.
    await assert.rejects(client.textToSpeech.convert('nobody:here', { text: 'Hi.' }), (e: unknown) => {
      assert.ok(e instanceof ElevenLabsError);
      assert.equal(e.statusCode, 422);
      const detail = (e.body as ElevenLabsErrorBody).detail;
      assert.deepEqual([detail.status, detail.code, detail.platform_code, detail.param], ['voice_not_found', 'voice_not_found', 'TTS_VOICE_NOT_FOUND', 'voice_id']);
      return true;
    });
    for (const route of ['stream', 'with-timestamps', 'stream/with-timestamps']) {
      const res = await post(`/v1/text-to-speech/nobody:here/${route}`, { text: 'Hi.' });
      assert.equal(res.status, 422, route);
      assert.equal(((await res.json()) as ElevenLabsErrorBody).detail.platform_code, 'TTS_VOICE_NOT_FOUND', route);
    }
    for (const format of ['mp3_44100_999', 'pcm_11025', 'ulaw_16000', 'flac', '']) {
      const res = await post(`/v1/text-to-speech/${VOICE}?output_format=${format}`, { text: 'Hi.' });
      assert.equal(res.status, 422, format);
      const body = (await res.json()) as ValidationBody;
      assert.equal(body.code, 'VALIDATION_FAILED', format);
      assert.deepEqual(body.detail[0]?.loc, ['query', 'output_format'], format);
    }
    const missing = await post(`/v1/text-to-speech/${VOICE}`, { model_id: 'eleven_flash_v2_5' });
    assert.equal(missing.status, 422);
    assert.deepEqual(((await missing.json()) as ValidationBody).detail[0]?.loc, ['body', 'text']);
    const cases: [unknown, number, string, string][] = [
      [{ text: '   ' }, 422, 'TTS_TEXT_EMPTY', 'tts_text_empty'],
      [{ text: 'Hi.', model_id: 'nonesuch' }, 404, 'TTS_MODEL_NOT_FOUND', 'model_not_found'],
      [{ text: '<speak><nonsense/></speak>' }, 422, 'SSML_INVALID', 'ssml_invalid'],
    ];
    for (const [body, status, code, elevenCode] of cases) {
      const res = await post(`/v1/text-to-speech/${VOICE}`, body);
      assert.equal(res.status, status, code);
      const detail = ((await res.json()) as ElevenLabsErrorBody).detail;
      assert.deepEqual([detail.platform_code, detail.code, detail.status], [code, elevenCode, elevenCode]);
    }
    const malformed = await fetch(`${p.url}/v1/text-to-speech/${VOICE}`, { method: 'POST', headers: { 'content-type': 'application/json', 'xi-api-key': p.apiKey }, body: '{"text":' });
    assert.equal(malformed.status, 422);
    assert.equal(((await malformed.json()) as ValidationBody).code, 'REQUEST_JSON_MALFORMED');
  });
});
