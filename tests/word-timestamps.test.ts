/**
 * Word timestamps end to end (issue 17 item 1): facade -> scheduler -> inference node over real
 * gRPC with real engines. POST /api/tts with `timestamps` answers JSON whose audio decodes to the
 * stated duration and whose words are the text's tokens, in order, without overlap, inside the
 * audio; speed (native and time-stretched) scales them; an SSML break is a gap between them; the
 * SSE events of /v1/audio/speech carry the same words; a job keeps its words (GetJob, ReadJobAudio,
 * the job store) and serves them as WebVTT and SRT captions, to its owner key or with its web job
 * token; the refusals have stable codes.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { makePiperFixtures } from '@tts/fixtures';
import { decodeWav } from '@tts/inference-node/testing';
import { startPlatform, waitFor, waitForEngine, type TestPlatform } from './support/platform.js';

interface Word { word: string; start: number; end: number }
interface Timestamped { audio: string; content_type: string; sample_rate: number; duration_seconds: number; words: Word[] }
interface Cue { start: number; end: number; text: string }

const TWO_SENTENCES = 'The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background.';
const PARAGRAPH = `${TWO_SENTENCES} It is easy to tell the depth of a well. These days a chicken leg is a rare dish.`;
const PIPER_VOICE = 'piper:en_US-fixture_tiny-low';
/** Two sentences each one chunk of a stream too (festival cuts a stream's first chunk at 32 characters). */
const STREAMED = 'The birch canoe slid away. Glue the sheet to the dark blue background.';

/** The text's tokens without their punctuation, lower case. */
const tokensOf = (text: string): string[] => text.split(/\s+/).filter((t) => t !== '').map(bare);
function bare(token: string): string {
  return token.replace(/[^\p{L}\p{N}']/gu, '').toLowerCase();
}

/** Words in order, each a non-empty span after the previous one, inside `seconds`. */
function assertWellFormed(words: readonly Word[], seconds: number, what: string): void {
  assert.ok(words.length > 0, `${what}: words`);
  words.forEach((w, i) => {
    assert.ok(w.end > w.start, `${what}: ${w.word} ${w.start}-${w.end} s`);
    if (i > 0) assert.ok(w.start >= words[i - 1]!.end, `${what}: ${w.word} starts at ${w.start} s before ${words[i - 1]!.word} ends at ${words[i - 1]!.end} s`);
  });
  assert.ok(words[0]!.start >= 0 && words.at(-1)!.end <= seconds + 0.001, `${what}: words within ${seconds} s (${words[0]!.start}-${words.at(-1)!.end})`);
}

/** Cues of a WebVTT or SRT file; asserts the file's shape. */
function parseCaptions(body: string, format: 'vtt' | 'srt'): Cue[] {
  const blocks = body.replace(/\r\n/g, '\n').trim().split(/\n{2,}/);
  if (format === 'vtt') assert.equal(blocks.shift(), 'WEBVTT');
  const time = format === 'vtt' ? /^(\d{2}):(\d{2}):(\d{2})\.(\d{3}) --> (\d{2}):(\d{2}):(\d{2})\.(\d{3})$/ : /^(\d{2}):(\d{2}):(\d{2}),(\d{3}) --> (\d{2}):(\d{2}):(\d{2}),(\d{3})$/;
  return blocks.map((block, i) => {
    const lines = block.split('\n');
    if (format === 'srt') assert.equal(lines.shift(), String(i + 1), `cue ${i + 1} is numbered`);
    const m = time.exec(lines.shift() ?? '');
    assert.ok(m, `cue ${i + 1}: a time line in ${JSON.stringify(block)}`);
    const sec = (h: string, mm: string, s: string, ms: string): number => Number(h) * 3600 + Number(mm) * 60 + Number(s) + Number(ms) / 1000;
    const cue = { start: sec(m[1]!, m[2]!, m[3]!, m[4]!), end: sec(m[5]!, m[6]!, m[7]!, m[8]!), text: lines.join(' ') };
    assert.ok(cue.end > cue.start && cue.text !== '', `cue ${i + 1}: ${JSON.stringify(cue)}`);
    return cue;
  });
}

/** Server-sent events of a /v1/audio/speech answer. */
async function sseEvents(res: Response): Promise<{ type: string; audio?: string; words?: Word[] }[]> {
  assert.equal(res.status, 200, await res.clone().text());
  assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
  return (await res.text()).split('\n\n').filter((b) => b.startsWith('data: ')).map((b) => JSON.parse(b.slice(6)) as { type: string; audio?: string; words?: Word[] });
}

describe('word timestamps', () => {
  let p: TestPlatform;
  let root = '';
  let key: { 'x-api-key': string };

  before(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'word-timestamps-'));
    await makePiperFixtures(root);
    p = await startPlatform({
      // The piper fixtures, and the project's models (the ASR model that aligns piper's words).
      node: { engines: ['flite', 'espeak', 'festival', 'piper'], defaultVoice: 'flite:slt', modelDirs: [root, path.resolve('data', 'models')] },
      facade: { defaultVoice: 'flite:slt' },
    });
    key = { 'x-api-key': (await p.createKey({ name: 'timestamps', tier: 'enterprise', rate_limit_per_minute: 10_000 })).apiKey };
    await waitForEngine(p, 'piper');
  });

  after(async () => {
    await p.stop();
    await rm(root, { recursive: true, force: true });
  });

  /** POST /api/tts with timestamps; checks the answer and that its audio decodes to the stated duration. */
  async function timestamped(body: Record<string, unknown>): Promise<Timestamped & { seconds: number }> {
    const res = await p.post('/api/tts', { format: 'wav', ...body, timestamps: true }, key);
    assert.equal(res.status, 200, await res.clone().text());
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    assert.ok(res.headers.get('x-tts-voice'), 'the usual headers');
    const answer = (await res.json()) as Timestamped;
    assert.equal(answer.content_type, 'audio/wav');
    const wav = decodeWav(Buffer.from(answer.audio, 'base64'));
    assert.equal(wav.sampleRate, answer.sample_rate);
    const seconds = wav.samples.length / wav.sampleRate;
    assert.ok(Math.abs(seconds - answer.duration_seconds) <= 0.002, `decoded ${seconds} s, stated ${answer.duration_seconds} s`);
    assert.ok(Math.abs(Number(res.headers.get('x-audio-duration-sec')) - answer.duration_seconds) < 0.0011, 'the header states the same duration');
    const ms = (t: number): boolean => Math.abs(t * 1000 - Math.round(t * 1000)) < 1e-6;
    for (const w of answer.words) assert.ok(ms(w.start) && ms(w.end), `${w.word} ${w.start}-${w.end}: seconds to the millisecond`);
    return { ...answer, seconds };
  }

  for (const voice of ['flite:slt', 'espeak:en-us', 'festival:slt']) {
    test(`${voice}: timestamps answer JSON with one word per token, in order, inside the audio`, async () => {
      const answer = await timestamped({ text: TWO_SENTENCES, voice });
      assert.deepEqual(answer.words.map((w) => bare(w.word)), tokensOf(TWO_SENTENCES));
      assertWellFormed(answer.words, answer.seconds, voice);
      assert.ok(answer.seconds - answer.words.at(-1)!.end < 0.35, `${voice}: the last word ends near the end (${answer.words.at(-1)!.end} of ${answer.seconds} s)`);
    });
  }

  test('words said through the lexicon keep their written names: a respelling (flite) and IPA (espeak-ng)', async () => {
    // A key of its own, so no other test meets these entries.
    const own = { 'x-api-key': (await p.createKey({ name: 'lexicon-timestamps', tier: 'enterprise', rate_limit_per_minute: 10_000 })).apiKey };
    const put = async (word: string, entry: Record<string, string>): Promise<void> => {
      const res = await fetch(`${p.url}/api/lexicon/entries/${encodeURIComponent(word)}`, { method: 'PUT', headers: { 'content-type': 'application/json', ...own }, body: JSON.stringify(entry) });
      assert.ok(res.status === 200 || res.status === 201, `PUT ${word}: ${res.status} ${await res.text()}`);
    };
    await put('Siobhan', { respelling: 'shiv awn' });
    await put('tomato', { ipa: 'təˈmɑːtoʊ' });
    const text = 'Siobhan ate a tomato today.';
    for (const voice of ['flite:slt', 'espeak:en-us']) {
      const res = await p.post('/api/tts', { text, voice, format: 'wav', timestamps: true }, own);
      assert.equal(res.status, 200, await res.clone().text());
      const answer = (await res.json()) as Timestamped;
      const seconds = decodeWav(Buffer.from(answer.audio, 'base64')).samples.length / answer.sample_rate;
      assert.deepEqual(answer.words.map((w) => bare(w.word)), tokensOf(text), `${voice}: the written words, not their respelling`);
      assertWellFormed(answer.words, seconds, voice);
    }
  });

  test('without timestamps the answer is the audio, as before', async () => {
    const res = await p.post('/api/tts', { text: 'Just the audio.', voice: 'flite:slt', format: 'wav' }, key);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'audio/wav');
    assert.ok(decodeWav(new Uint8Array(await res.arrayBuffer())).samples.length > 0);
  });

  // flite applies speed 2 itself; espeak-ng's rate stops at 450 words a minute (2.57 times), so at
  // speed 3 the node time-stretches its audio.
  for (const [voice, speed, how] of [['flite:slt', 2, 'natively'], ['espeak:en-us', 3, 'time-stretched']] as const) {
    test(`${voice} at speed ${speed} (${how}): the words' ends scale by the speed; the last ends near the audio's end`, async () => {
      const engine = p.nodes[0]!.context.registry.resolve(voice).engine;
      assert.equal(speed <= (engine.nativeSpeed?.max ?? 1), how === 'natively', `${voice}: speed ${speed} is applied ${how}`);
      const normal = await timestamped({ text: TWO_SENTENCES, voice });
      const fast = await timestamped({ text: TWO_SENTENCES, voice, speed });
      assert.deepEqual(fast.words.map((w) => w.word), normal.words.map((w) => w.word));
      assertWellFormed(fast.words, fast.seconds, `${voice} x${speed}`);
      const lastNormal = normal.words.at(-1)!.end;
      const lastFast = fast.words.at(-1)!.end;
      const ratio = lastNormal / lastFast;
      assert.ok(ratio > speed * 0.75 && ratio < speed * 1.25, `${voice}: last word ends at ${lastNormal} s at speed 1, ${lastFast} s at speed ${speed} (x${ratio.toFixed(2)})`);
      fast.words.forEach((w, i) => {
        const expected = normal.words[i]!.end / speed;
        assert.ok(Math.abs(w.end - expected) < 0.12 + 0.1 * expected, `${w.word}: ends at ${w.end} s, ${expected.toFixed(3)} s expected`);
      });
      assert.ok(fast.seconds - lastFast < 0.3, `${voice} x${speed}: the last word ends at ${lastFast} of ${fast.seconds} s`);
    });
  }

  for (const voice of ['flite:slt', 'espeak:en-us', 'festival:slt']) {
    test(`${voice}: a 1 s <break> is a gap of at least 0.9 s between the words around it`, async () => {
      const answer = await timestamped({ text: '<speak>Hello there.<break time="1s"/>How are you today?</speak>', voice });
      assert.deepEqual(answer.words.map((w) => bare(w.word)), ['hello', 'there', 'how', 'are', 'you', 'today']);
      assertWellFormed(answer.words, answer.seconds, voice);
      const gap = answer.words[2]!.start - answer.words[1]!.end;
      assert.ok(gap >= 0.9 && gap < 1.6, `${voice}: ${gap.toFixed(3)} s between "there" and "how"`);
    });
  }

  // flite and festival render a text the same way call after call (espeak-ng's timings move by
  // some milliseconds from call to call), so the two answers can be compared closely: within 20 ms
  // (the edge trimming of the first piece was seen to differ by 5 ms between the two paths).
  for (const voice of ['flite:slt', 'festival:slt']) {
    test(`${voice}: the SSE events of /v1/audio/speech carry the words of the unary answer`, async () => {
      const unary = await timestamped({ text: STREAMED, voice });
      const events = await sseEvents(await p.post('/v1/audio/speech', { model: 'tts-1', input: STREAMED, voice, response_format: 'wav', stream_format: 'sse' }, key));
      const deltas = events.filter((e) => e.type === 'speech.audio.delta');
      assert.equal(events.at(-1)?.type, 'speech.audio.done');
      const withWords = deltas.filter((e) => (e.words ?? []).length > 0);
      assert.ok(withWords.length >= 2, `${voice}: the words of each sentence ride their own event (${withWords.length} events with words of ${deltas.length})`);
      const streamed = deltas.flatMap((e) => e.words ?? []);
      assert.deepEqual(streamed.map((w) => w.word), unary.words.map((w) => w.word));
      streamed.forEach((w, i) => {
        const u = unary.words[i]!;
        assert.ok(Math.abs(w.start - u.start) <= 0.02 && Math.abs(w.end - u.end) <= 0.02, `${w.word}: streamed ${w.start}-${w.end} s, unary ${u.start}-${u.end} s`);
      });
    });
  }

  /** Submits an API job and waits for its end; resolves to its id. */
  async function completedJob(text: string, voice: string): Promise<string> {
    const res = await p.post('/api/jobs/tts', { text, voice }, key);
    assert.ok(res.status === 200 || res.status === 202, await res.clone().text());
    const jobId = ((await res.json()) as { job_id: string }).job_id;
    await waitFor(async () => ((await (await p.get(`/api/jobs/${jobId}`, key)).json()) as { status: string }).status === 'completed', 30_000, `job ${jobId}`);
    return jobId;
  }

  test('an API job keeps its words (job store, GetJob, ReadJobAudio) and serves them as WebVTT and SRT captions', async () => {
    const jobId = await completedJob(PARAGRAPH, 'flite:slt');
    const job = await p.facade.deps.jobs.get(jobId);
    const words = job?.result?.words ?? [];
    assert.deepEqual(words.map((w) => bare(w.word)), tokensOf(PARAGRAPH));
    assertWellFormed(words.map((w) => ({ word: w.word, start: w.startSec, end: w.endSec })), job!.result!.audioSeconds, 'job');
    const [row] = await p.jobDatabase.query<{ n: number }>('SELECT jsonb_array_length(result_words) AS n FROM jobs WHERE job_id = $1::text', [jobId]);
    assert.equal(Number(row?.n), words.length, 'the job store holds the words');
    let first: { words: unknown[] } | undefined;
    for await (const chunk of p.facade.deps.jobs.audio(job!, new AbortController().signal)) first ??= chunk.result;
    assert.equal(first?.words.length, words.length, 'ReadJobAudio carries the words with the result');

    const starts = new Set(words.map((w) => Math.round(w.startSec * 1000)));
    const ends = new Set(words.map((w) => Math.round(w.endSec * 1000)));
    for (const format of ['vtt', 'srt'] as const) {
      const res = await p.get(`/api/jobs/${jobId}/captions?format=${format}`, key);
      assert.equal(res.status, 200, await res.clone().text());
      assert.match(res.headers.get('content-type') ?? '', format === 'vtt' ? /^text\/vtt/ : /^application\/x-subrip/);
      assert.match(res.headers.get('content-disposition') ?? '', new RegExp(`${jobId}\\.${format}`));
      const cues = parseCaptions(await res.text(), format);
      assert.ok(cues.length >= 4, `${format}: ${cues.length} cues`);
      assert.deepEqual(cues.flatMap((c) => c.text.split(' ')), PARAGRAPH.split(' '), `${format}: the cues are the text's words, as written`);
      cues.forEach((c, i) => {
        const n = c.text.split(' ').length;
        assert.ok(n <= 7 && (c.text.length <= 42 || n === 1) && (c.end - c.start <= 5 || n === 1), `${format} cue ${i + 1}: ${JSON.stringify(c)}`);
        assert.ok(starts.has(Math.round(c.start * 1000)) && ends.has(Math.round(c.end * 1000)), `${format} cue ${i + 1} starts at a word's start and ends at a word's end: ${JSON.stringify(c)}`);
        if (i > 0) assert.ok(c.start >= cues[i - 1]!.end, `${format}: cues in order`);
        // A sentence's end ends its cue.
        assert.ok(!/[.!?] /.test(c.text), `${format} cue ${i + 1} does not run across a sentence end: ${c.text}`);
      });
      assert.equal(Math.round(cues[0]!.start * 1000), Math.round(words[0]!.startSec * 1000));
      assert.equal(Math.round(cues.at(-1)!.end * 1000), Math.round(words.at(-1)!.endSec * 1000));
    }
    const vtt = parseCaptions(await (await p.get(`/api/jobs/${jobId}/captions`, key)).text(), 'vtt');
    assert.ok(vtt.length > 0, 'format defaults to vtt');
  });

  test('captions refusals: unknown format 422, another key 404, a job not completed 409 JOB_NOT_READY, a job without timings 409 JOB_CAPTIONS_UNAVAILABLE', async () => {
    const jobId = await completedJob('Short and sweet.', 'espeak:en-us');
    const bad = await p.get(`/api/jobs/${jobId}/captions?format=xml`, key);
    assert.equal(bad.status, 422);
    assert.equal(((await bad.json()) as { code: string }).code, 'VALIDATION_FAILED');
    const other = await p.get(`/api/jobs/${jobId}/captions`, { 'x-api-key': (await p.createKey({ name: 'other' })).apiKey });
    assert.equal(other.status, 404);
    assert.equal(((await other.json()) as { code: string }).code, 'JOB_NOT_FOUND');

    // A long festival job is still queued or running right after its submission.
    const long = await p.post('/api/jobs/tts', { text: Array.from({ length: 30 }, () => PARAGRAPH).join(' ').slice(0, 2500), voice: 'festival:slt' }, key);
    const longId = ((await long.json()) as { job_id: string }).job_id;
    const early = await p.get(`/api/jobs/${longId}/captions`, key);
    assert.equal(early.status, 409);
    assert.equal(((await early.json()) as { code: string }).code, 'JOB_NOT_READY');

    // Piper has no timings of its own: a job's words are aligned with the ASR model, one per token.
    const piperJob = await completedJob('Aligned words here.', PIPER_VOICE);
    const job = await p.facade.deps.jobs.get(piperJob);
    const aligned = job?.result?.words ?? [];
    assert.deepEqual(aligned.map((w) => w.word), ['Aligned', 'words', 'here'], 'piper job words from the aligner');
    for (const [i, w] of aligned.entries()) {
      assert.ok(w.startSec <= w.endSec && w.endSec <= (job?.result?.audioSeconds ?? 0) + 0.01, `word ${i} within the audio: ${JSON.stringify(w)}`);
      if (i > 0) assert.ok(w.startSec >= aligned[i - 1]!.endSec - 1e-6, 'in order, without overlap');
    }
    const srt = await p.get(`/api/jobs/${piperJob}/captions?format=srt`, key);
    assert.equal(srt.status, 200);
    assert.match(await srt.text(), /Aligned words here/);
    const unary = await timestamped({ text: 'Aligned words here.', voice: PIPER_VOICE });
    assert.deepEqual(unary.words.map((w) => w.word), ['Aligned', 'words', 'here'], 'timestamps of a piper voice are aligned');
    // The ASR model speaks English only: a piper job in another language has no timings, and says so.
    const german = await p.post('/api/jobs/tts', { text: 'Guten Tag.', voice: PIPER_VOICE, language: 'de' }, key);
    const germanId = ((await german.json()) as { job_id: string }).job_id;
    await waitFor(async () => ((await (await p.get(`/api/jobs/${germanId}`, key)).json()) as { status: string }).status === 'completed', 30_000, 'the German job');
    const none = await p.get(`/api/jobs/${germanId}/captions?format=srt`, key);
    assert.equal(none.status, 409);
    assert.equal(((await none.json()) as { code: string }).code, 'JOB_CAPTIONS_UNAVAILABLE');
    await waitFor(async () => ((await (await p.get(`/api/jobs/${longId}`, key)).json()) as { status: string }).status === 'completed', 60_000, 'the long job');
  });

  test('web job captions need its job token: with it (query or header) 200, without 401, with another job\'s 403', async () => {
    const web = async (text: string): Promise<{ job_id: string; job_token: string }> => {
      const res = await fetch(`${p.url}/api/web/jobs/tts`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...key }, body: new URLSearchParams({ text, voice: 'flite:slt' }).toString() });
      assert.equal(res.status, 200, await res.clone().text());
      return (await res.json()) as { job_id: string; job_token: string };
    };
    const mine = await web(TWO_SENTENCES);
    const theirs = await web('Another web job.');
    await waitFor(async () => ((await (await fetch(`${p.url}/api/web/jobs/${mine.job_id}`, { headers: { 'x-job-token': mine.job_token } })).json()) as { status: string }).status === 'completed', 30_000, 'the web job');
    const words = (await p.facade.deps.jobs.get(mine.job_id))?.result?.words ?? [];
    const srt = await fetch(`${p.url}/api/web/jobs/${mine.job_id}/captions?format=srt&token=${encodeURIComponent(mine.job_token)}`);
    assert.equal(srt.status, 200, await srt.clone().text());
    assert.match(srt.headers.get('content-type') ?? '', /^application\/x-subrip/);
    const cues = parseCaptions(await srt.text(), 'srt');
    assert.deepEqual(cues.flatMap((c) => c.text.split(' ')), TWO_SENTENCES.split(' '));
    assert.equal(Math.round(cues.at(-1)!.end * 1000), Math.round(words.at(-1)!.endSec * 1000));
    const vtt = await fetch(`${p.url}/api/web/jobs/${mine.job_id}/captions?format=vtt`, { headers: { 'x-job-token': mine.job_token } });
    assert.equal(vtt.status, 200);
    assert.equal(parseCaptions(await vtt.text(), 'vtt').length, cues.length);
    const missing = await fetch(`${p.url}/api/web/jobs/${mine.job_id}/captions`);
    assert.equal(missing.status, 401);
    assert.equal(((await missing.json()) as { code: string }).code, 'JOB_TOKEN_MISSING');
    const wrong = await fetch(`${p.url}/api/web/jobs/${mine.job_id}/captions`, { headers: { 'x-job-token': theirs.job_token } });
    assert.equal(wrong.status, 403);
    assert.equal(((await wrong.json()) as { code: string }).code, 'JOB_TOKEN_INVALID');
  });
});
