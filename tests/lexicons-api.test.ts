/**
 * Pronunciation lexicons end to end (issue 17 item 2): the API of a key's, a studio user's and a
 * studio preset's lexicon on a real platform (facade, scheduler, two inference nodes, PostgreSQL);
 * bad entries, huge lexicons and full lexicons refused with their 4xx codes and nothing stored
 * changed; owner scoping; and the lexicon in the decoded audio: espeak-ng says an entry's IPA
 * inline (the two tomatoes sound apart, compared by their spectra since no engine renders one input
 * to the same samples twice), the next request after a change says the new entry on both nodes,
 * flite reads a respelling (longer audio that sounds like the respelled text), a job says its words
 * as its submission's lexicon did, a preset's entry wins over the user's own. The provenance mark
 * is off, so it adds nothing to the differences measured.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { decodeWav, spectralDistance, type PcmAudio } from '@tts/inference-node/testing';
import { startPlatform, waitFor, type TestPlatform } from './support/platform.js';

const SENTENCE = 'I say tomato today.';
const BRITISH = 'təˈmɑːtoʊ';
const AMERICAN = 'təˈmeɪtoʊ';

type Json = Record<string, unknown>;

/** The decoded audio of a WAV answer. */
async function audioOf(res: Response): Promise<PcmAudio> {
  assert.equal(res.status, 200, await res.clone().text());
  const wav = decodeWav(new Uint8Array(await res.arrayBuffer()));
  return { samples: Float32Array.from(wav.samples), sampleRate: wav.sampleRate };
}

/**
 * Asserts that `clip` sounds like `like` rather than `unlike`: neither espeak-ng (its pitch flutter
 * runs on from call to call) nor flite renders one input to the same samples twice, so clips are
 * compared by their spectra (spectralDistance), the nearer at least 1.5 times nearer.
 */
function assertCloser(clip: PcmAudio, like: PcmAudio, unlike: PcmAudio, what: string): void {
  const near = spectralDistance(clip, like);
  const far = spectralDistance(clip, unlike);
  assert.ok(1.5 * near < far, `${what}: ${near.toFixed(3)} from the expected pronunciation, ${far.toFixed(3)} from the other`);
}

describe('pronunciation lexicons', () => {
  let p: TestPlatform;
  let key: { keyId: string; apiKey: string };
  let other: { keyId: string; apiKey: string };

  /** Calls the API with `headers` (a JSON body when given). */
  async function call(method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<{ status: number; json: Json; text: string }> {
    const res = await fetch(`${p.url}${path}`, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    const text = await res.text();
    let json: Json = {};
    try {
      json = JSON.parse(text) as Json;
    } catch {
      // not JSON
    }
    return { status: res.status, json, text };
  }
  const as = (k: { apiKey: string }): Record<string, string> => ({ 'x-api-key': k.apiKey });
  const words = async (headers: Record<string, string>, path = '/api/lexicon'): Promise<string[]> =>
    ((await call('GET', path, headers)).json['entries'] as { word: string }[]).map((e) => e.word);
  const speak = (headers: Record<string, string>, voice = 'espeak:en-us', text = SENTENCE, extra: Json = {}): Promise<Response> =>
    fetch(`${p.url}/api/tts`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ text, voice, format: 'wav', ...extra }) });

  before(async () => {
    p = await startPlatform({
      nodes: 2,
      node: { engines: ['flite', 'espeak'], defaultVoice: 'flite:slt', watermark: false },
      facade: { defaultVoice: 'flite:slt', routing: 'round-robin' },
    });
    key = await p.createKey({ name: 'lexicon' });
    other = await p.createKey({ name: 'other' });
  });
  after(async () => {
    await p.stop();
  });

  test('CRUD of the key\'s lexicon: replace, put (201 new, 200 replaced whatever the case), delete (404 when gone)', async () => {
    const empty = await call('GET', '/api/lexicon', as(key));
    assert.equal(empty.status, 200);
    assert.deepEqual(empty.json, { object: 'lexicon', owner: 'api_key', entries: [], limits: { max_entries: 1000, max_word_chars: 100, max_words: 8, max_pronunciation_chars: 200 } });
    const put = await call('PUT', '/api/lexicon', as(key), { entries: [{ word: 'tomato', ipa: BRITISH }, { word: 'Nginx', respelling: 'engine ex', case_sensitive: true }, { word: ' New   York ', ipa: 'nuː jˈɔːɹk' }] });
    assert.equal(put.status, 200, put.text);
    assert.deepEqual((put.json['entries'] as Json[]).map((e) => [e['word'], e['ipa'], e['respelling'], e['case_sensitive']]), [
      ['New York', 'nuː jˈɔːɹk', null, false], ['Nginx', null, 'engine ex', true], ['tomato', BRITISH, null, false],
    ]);
    const added = await call('PUT', '/api/lexicon/entries/Siobhan', as(key), { respelling: 'shiv-awn', case_sensitive: true });
    assert.equal(added.status, 201, added.text);
    assert.deepEqual([added.json['word'], added.json['respelling'], added.json['case_sensitive']], ['Siobhan', 'shiv-awn', true]);
    const replaced = await call('PUT', `/api/lexicon/entries/${encodeURIComponent('NEW YORK')}`, as(key), { respelling: 'noo york' });
    assert.equal(replaced.status, 200, replaced.text);
    assert.deepEqual(await words(as(key)), ['NEW YORK', 'Nginx', 'Siobhan', 'tomato']);
    assert.equal((await call('DELETE', '/api/lexicon/entries/siobhan', as(key))).status, 200);
    const gone = await call('DELETE', '/api/lexicon/entries/siobhan', as(key));
    assert.deepEqual([gone.status, gone.json['code']], [404, 'LEXICON_ENTRY_NOT_FOUND']);
    assert.deepEqual(await words(as(key)), ['NEW YORK', 'Nginx', 'tomato']);
  });

  test('bad entries, huge and full lexicons: a clear 4xx code naming the problem, nothing stored changed, never a 500', async () => {
    const before = (await call('GET', '/api/lexicon', as(key))).text;
    const refusals: [unknown, number, string, unknown[] | undefined, string | undefined][] = [
      [{ entries: [{ word: 'ok', ipa: 'oʊ' }, { word: 'tomato', ipa: "t@m'A:toU" }] }, 422, 'LEXICON_IPA_INVALID', ['body', 'entries', 1, 'ipa'], '"@" (U+0040) at symbol 2'],
      [{ entries: [{ word: 'tomato', ipa: 'TOMATO' }] }, 422, 'LEXICON_IPA_INVALID', ['body', 'entries', 0, 'ipa'], 'U+0054'],
      [{ entries: [{ word: 'tomato', respelling: 'tuh<may>toh' }] }, 422, 'LEXICON_RESPELLING_INVALID', ['body', 'entries', 0, 'respelling'], 'U+003C'],
      [{ entries: [{ word: 'tomato', ipa: BRITISH, respelling: 'tuh-mah-toh' }] }, 422, 'LEXICON_ENTRY_INVALID', ['body', 'entries', 0], undefined],
      [{ entries: [{ word: 'tomato' }] }, 422, 'LEXICON_ENTRY_INVALID', ['body', 'entries', 0], undefined],
      [{ entries: [{ word: 'x'.repeat(101), ipa: 'ə' }] }, 422, 'LEXICON_ENTRY_TOO_LONG', ['body', 'entries', 0, 'word'], '101 characters'],
      [{ entries: [{ word: 'tomato', ipa: 'ə'.repeat(201) }] }, 422, 'LEXICON_ENTRY_TOO_LONG', ['body', 'entries', 0, 'ipa'], '201 characters'],
      [{ entries: [{ word: 'to<ma>to', ipa: 'ə' }] }, 422, 'LEXICON_WORD_INVALID', ['body', 'entries', 0, 'word'], 'U+003C'],
      [{ entries: [{ word: 'Tomato', ipa: 'ə' }, { word: 'tomato', ipa: 'ə' }] }, 422, 'LEXICON_ENTRY_DUPLICATE', ['body', 'entries', 1, 'word'], undefined],
      [{ entries: Array.from({ length: 1001 }, (_, i) => ({ word: `w${i}`, respelling: 'ok' })) }, 422, 'LEXICON_TOO_LARGE', ['body', 'entries'], '1001 entries'],
      [{ entries: [{ word: 5, ipa: 'ə' }] }, 422, 'VALIDATION_FAILED', undefined, undefined],
      [{ entries: 'all of them' }, 422, 'VALIDATION_FAILED', undefined, undefined],
      [`{"entries": [${'{"word":"x","ipa":"ə"},'.repeat(60_000)}{"word":"y","ipa":"ə"}]}`, 413, 'REQUEST_BODY_TOO_LARGE', undefined, undefined],
    ];
    for (const [body, status, code, loc, text] of refusals) {
      const res = await call('PUT', '/api/lexicon', as(key), body);
      const what = `${code}: ${res.text.slice(0, 300)}`;
      assert.equal(res.status, status, what);
      assert.equal(res.json['code'], code, what);
      const detail = res.json['detail'] as { loc: unknown[]; msg: string }[] | undefined;
      if (loc !== undefined) assert.deepEqual(detail?.[0]?.loc, loc, what);
      if (text !== undefined) assert.ok(detail?.[0]?.msg.includes(text), what);
    }
    const entryRefusals: [string, unknown, string][] = [
      ['tomato', { ipa: 'tomato!' }, 'LEXICON_IPA_INVALID'],
      ['tomato', {}, 'LEXICON_ENTRY_INVALID'],
      [encodeURIComponent('a/b'), { ipa: 'ə' }, 'LEXICON_WORD_INVALID'],
      [encodeURIComponent('one two three four five six seven eight nine'), { ipa: 'ə' }, 'LEXICON_WORD_INVALID'],
    ];
    for (const [word, body, code] of entryRefusals) {
      const res = await call('PUT', `/api/lexicon/entries/${word}`, as(key), body);
      assert.deepEqual([res.status, res.json['code']], [422, code], res.text);
    }
    assert.equal((await call('GET', '/api/lexicon', as(key))).text, before, 'no refused request changed the lexicon');

    // A full lexicon: a new word is refused with 409, an entry of it still changes.
    const full = await call('PUT', '/api/lexicon', as(other), { entries: Array.from({ length: 1000 }, (_, i) => ({ word: `word${i}`, respelling: 'ok' })) });
    assert.equal(full.status, 200, full.text.slice(0, 200));
    const more = await call('PUT', '/api/lexicon/entries/tomato', as(other), { ipa: AMERICAN });
    assert.deepEqual([more.status, more.json['code']], [409, 'LEXICON_LIMIT_REACHED'], more.text);
    assert.equal((await call('PUT', '/api/lexicon/entries/WORD7', as(other), { respelling: 'seven' })).status, 200);
    const stored = (await call('GET', '/api/lexicon', as(other))).json['entries'] as Json[];
    assert.equal(stored.length, 1000);
    assert.ok(!stored.some((e) => e['word'] === 'tomato'));
    assert.equal((await call('PUT', '/api/lexicon', as(other), { entries: [] })).status, 200);
  });

  test('owner scoping: a key sees and changes only its own lexicon; a preset\'s lexicon only its owner\'s session reaches', async () => {
    assert.deepEqual(await words(as(other)), []);
    const foreign = await call('DELETE', '/api/lexicon/entries/tomato', as(other));
    assert.deepEqual([foreign.status, foreign.json['code']], [404, 'LEXICON_ENTRY_NOT_FOUND']);
    assert.ok((await words(as(key))).includes('tomato'), 'the owner\'s entry stays');
    assert.equal((await call('GET', '/api/lexicon', {})).json['code'], 'AUTH_KEY_MISSING');
    assert.equal((await call('GET', '/api/lexicon', { 'x-admin-key': p.adminKey })).json['code'], 'AUTH_KEY_MISSING');

    const studio = p.facade.deps.access.studio;
    const owner = await studio.guest('lexicon');
    const stranger = await studio.guest('lexicon');
    const preset = await p.facade.deps.studio.presets.create(await studio.authenticate(owner.token), { name: 'Lexicon preset' });
    const path = `/api/studio/presets/${preset.presetId}/lexicon`;
    const set = await call('PUT', path, { 'x-studio-token': owner.token }, { entries: [{ word: 'tomato', ipa: AMERICAN }] });
    assert.equal(set.status, 200, set.text);
    assert.deepEqual([set.json['owner'], set.json['preset_id']], ['studio_preset', preset.presetId]);
    for (const [method, suffix] of [['GET', ''], ['PUT', ''], ['PUT', '/entries/tomato'], ['DELETE', '/entries/tomato']] as const) {
      const body = method === 'GET' || method === 'DELETE' ? undefined : suffix === '' ? { entries: [] } : { ipa: BRITISH };
      const res = await call(method, `${path}${suffix}`, { 'x-studio-token': stranger.token }, body);
      assert.deepEqual([res.status, res.json['code']], [404, 'STUDIO_PRESET_NOT_FOUND'], `${method} ${suffix}`);
      const byKey = await call(method, `${path}${suffix}`, as(key), body);
      assert.deepEqual([byKey.status, byKey.json['code']], [401, 'STUDIO_SESSION_MISSING'], `${method} ${suffix} with a key`);
    }
    assert.deepEqual(await words({ 'x-studio-token': owner.token }, path), ['tomato'], 'refused calls changed nothing');
    // The studio user's own lexicon is apart from the preset's and from every key's.
    assert.deepEqual(await words({ 'x-studio-token': owner.token }), []);
    assert.equal((await call('GET', '/api/lexicon', { 'x-studio-token': owner.token })).json['owner'], 'studio_user');
    // The public share view shows the lexicon a fork copies (pronunciations are part of the preset).
    const share = await p.facade.deps.studio.presets.share(await studio.authenticate(owner.token), preset.presetId, undefined);
    const view = await call('GET', `/api/studio/share/${share.token}`, {});
    assert.equal(view.status, 200, view.text);
    assert.deepEqual((view.json['lexicon'] as Json[]).map((e) => [e['word'], e['ipa'], e['respelling'], e['case_sensitive']]), [['tomato', AMERICAN, null, false]]);
    // A fork of the shared preset copies it.
    const fork = await p.facade.deps.studio.presets.fork(await studio.authenticate(stranger.token), share.token, undefined);
    assert.deepEqual(await words({ 'x-studio-token': stranger.token }, `/api/studio/presets/${fork.presetId}/lexicon`), ['tomato']);
    // A preset's lexicon goes with its preset.
    assert.equal((await call('DELETE', `/api/studio/presets/${preset.presetId}`, { 'x-studio-token': owner.token })).status, 200);
    const [rows] = await p.facade.deps.access.database.query<{ n: string }>('SELECT count(*)::text AS n FROM lexicon_entries WHERE lexicon_id = $1::text', [`preset:${preset.presetId}`]);
    assert.equal(rows?.n, '0');
  });

  test('espeak-ng says the entry\'s IPA inline: the two tomatoes sound different, and the next request after a change says the new one on every node', async () => {
    const plainKey = await p.createKey({ name: 'plain' });
    const americanKey = await p.createKey({ name: 'american' });
    assert.equal((await call('PUT', '/api/lexicon/entries/tomato', as(americanKey), { ipa: AMERICAN })).status, 201);
    assert.equal((await call('PUT', '/api/lexicon/entries/tomato', as(key), { ipa: BRITISH })).status, 200);
    const plain = await audioOf(await speak(as(plainKey)));
    const british = await audioOf(await speak(as(key)));
    const britishAgain = await audioOf(await speak(as(key)));
    const american = await audioOf(await speak(as(americanKey)));
    const same = spectralDistance(british, britishAgain);
    const apart = spectralDistance(british, american);
    assert.ok(apart > 1.8 * same, `British vs American entry ${apart.toFixed(3)}; the British entry twice ${same.toFixed(3)}`);
    assert.ok(spectralDistance(british, plain) > 1.8 * same, `the British entry vs none ${spectralDistance(british, plain).toFixed(3)}`);
    // The change applies to the very next request, on both nodes (round-robin routing).
    assert.equal((await call('PUT', '/api/lexicon/entries/Tomato', as(key), { ipa: AMERICAN })).status, 200);
    const nodes = new Set<string>();
    for (let i = 0; i < 4; i++) {
      const res = await speak(as(key));
      nodes.add(res.headers.get('x-tts-node') ?? '');
      assertCloser(await audioOf(res), american, british, `request ${i + 1} after the change`);
    }
    assert.equal(nodes.size, 2, `both nodes answered: ${[...nodes].join(', ')}`);
    assert.equal((await call('PUT', '/api/lexicon/entries/tomato', as(key), { ipa: BRITISH })).status, 200);
    // Whole words only: "tomatoes" is not the entry's word, so both keys say it alike.
    const plural = 'I say tomatoes today.';
    const pluralDistance = spectralDistance(await audioOf(await speak(as(key), 'espeak:en-us', plural)), await audioOf(await speak(as(plainKey), 'espeak:en-us', plural)));
    assert.ok(pluralDistance < apart / 1.8, `"tomatoes" with and without the entry ${pluralDistance.toFixed(3)}`);
    // OpenAI's endpoint carries the lexicon too (raw 16-bit PCM at 24 kHz).
    const openai = async (k: { apiKey: string }): Promise<PcmAudio> => {
      const res = await fetch(`${p.url}/v1/audio/speech`, { method: 'POST', headers: { authorization: `Bearer ${k.apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'espeak', input: SENTENCE, voice: 'espeak:en-us', response_format: 'pcm' }) });
      assert.equal(res.status, 200);
      const bytes = Buffer.from(await res.arrayBuffer());
      return { samples: Float32Array.from({ length: bytes.length >> 1 }, (_, i) => bytes.readInt16LE(2 * i) / 32768), sampleRate: 24_000 };
    };
    assertCloser(await openai(key), await openai(key), await openai(plainKey), 'POST /v1/audio/speech with the British entry');
  });

  test('flite reads a respelling, and a respelling made from an IPA entry: the audio is the respelled text\'s', async () => {
    const flite = await p.createKey({ name: 'flite' });
    const text = 'We met Bob at noon.';
    const plain = await audioOf(await speak(as(flite), 'flite:slt', text));
    assert.equal((await call('PUT', '/api/lexicon/entries/Bob', as(flite), { respelling: 'Bartholomew Montgomery', case_sensitive: true })).status, 201);
    const longer = await audioOf(await speak(as(flite), 'flite:slt', text));
    // flite renders 16 kHz: the two long names add well over half a second.
    assert.ok(longer.samples.length - plain.samples.length > 0.5 * 16_000, `${plain.samples.length} -> ${longer.samples.length} samples`);
    assertCloser(longer, await audioOf(await speak(as(flite), 'flite:slt', 'We met Bartholomew Montgomery at noon.')), plain, 'flite with the respelling');
    // An IPA entry on an engine without phoneme input: read as a respelling made from the IPA.
    const ipaText = 'Siobhan sings.';
    const asWritten = await audioOf(await speak(as(flite), 'flite:slt', ipaText));
    assert.equal((await call('PUT', '/api/lexicon/entries/Siobhan', as(flite), { ipa: 'ʃɪˈvɔːn' })).status, 201);
    const asEntry = await audioOf(await speak(as(flite), 'flite:slt', ipaText));
    assertCloser(asEntry, await audioOf(await speak(as(flite), 'flite:slt', 'shi-vawn sings.')), asWritten, 'flite with the respelling "shi-vawn" made from the IPA');
  });

  test('a job says its words with the lexicon of its submission, stored with the job', async () => {
    const plainKey = await p.createKey({ name: 'plain job' });
    assert.equal((await call('PUT', '/api/lexicon/entries/tomato', as(key), { ipa: BRITISH })).status < 300, true, 'the key says the British tomato');
    const submit = await p.post('/api/jobs/tts', { text: SENTENCE, voice: 'espeak:en-us', format: 'wav' }, as(key));
    assert.equal(submit.status, 202, await submit.clone().text());
    const job = (await submit.json()) as { job_id: string };
    await waitFor(async () => ((await (await p.get(`/api/jobs/${job.job_id}`, as(key))).json()) as { status: string }).status === 'completed', 30_000, 'the job');
    const jobAudio = await audioOf(await p.get(`/api/jobs/${job.job_id}/audio`, as(key)));
    assertCloser(jobAudio, await audioOf(await speak(as(key))), await audioOf(await speak(as(plainKey))), 'the job');
    const [row] = await p.jobDatabase.query<{ lexicon: unknown }>('SELECT lexicon FROM jobs WHERE job_id = $1::text', [job.job_id]);
    const stored = (typeof row?.lexicon === 'string' ? JSON.parse(row.lexicon) : row?.lexicon) as { word: string; ipa: string | null }[];
    assert.ok(stored.some((e) => e.word.toLowerCase() === 'tomato' && e.ipa === BRITISH), JSON.stringify(stored));
  });

  test('with a preset, its entries apply on top of the studio user\'s own, the preset winning for a word both have', async () => {
    const studio = p.facade.deps.access.studio;
    const user = await studio.guest('lexicon');
    const headers = { 'x-studio-token': user.token };
    const preset = await p.facade.deps.studio.presets.create(await studio.authenticate(user.token), { name: 'Americans', voice: 'espeak:en-us' });
    assert.equal((await call('PUT', '/api/lexicon', headers, { entries: [{ word: 'tomato', ipa: BRITISH }] })).status, 200);
    assert.equal((await call('PUT', `/api/studio/presets/${preset.presetId}/lexicon/entries/tomato`, headers, { ipa: AMERICAN })).status, 201);
    const americanKey = await p.createKey({ name: 'american again' });
    assert.equal((await call('PUT', '/api/lexicon/entries/tomato', as(americanKey), { ipa: AMERICAN })).status, 201);
    const american = await audioOf(await speak(as(americanKey)));
    const britishKey = await p.createKey({ name: 'british' });
    assert.equal((await call('PUT', '/api/lexicon/entries/tomato', as(britishKey), { ipa: BRITISH })).status, 201);
    const british = await audioOf(await speak(as(britishKey)));
    assertCloser(await audioOf(await speak(headers, 'espeak:en-us', SENTENCE, { preset_id: preset.presetId })), american, british, 'with the preset');
    assertCloser(await audioOf(await speak(headers)), british, american, 'without the preset');
  });
});
