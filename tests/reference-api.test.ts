/**
 * Reference audio over REST against a real platform (facade, scheduler, node on loopback; real
 * PostgreSQL and Redis): real clips made with flite and ffmpeg in every accepted container, the
 * guideline and quality warnings measured on the node, the owner's stored clips, and bad input
 * (not audio, truncated, empty, too large with and without a Content-Length, wrong fields) answered
 * with stable codes, never a 500, leaving no temporary file behind.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { openDatabase } from '@tts/common/data';
import { TEST_DATABASE_URL } from '@tts/common/testing';
import { startPlatform, type TestPlatform } from './support/platform.js';

const run = promisify(execFile);
const UPLOAD_CAP = 6 * 1024 * 1024;

interface Validation {
  ok: boolean;
  passed: boolean;
  reference_guideline: { min_sec: number; max_sec: number };
  audio: { suffix: string; duration_sec: number; sample_rate: number; channels: number; codec: string };
  warnings: { code: string; message: string }[];
  failed_checks: string[];
  metrics: { speech_ratio: number; snr_db: number; median_f0_hz: number; leading_silence_sec: number; clipped_ratio: number; speech_level_dbfs: number };
  reference_id: string | null;
  expires_at: string | null;
}

describe('reference audio API', () => {
  let p: TestPlatform;
  let work: string;
  let uploadsFacade: string;
  let uploadsNode: string;
  /** A 16 kHz mono flite clip of about 4 s. */
  let speechWav: string;

  const ffmpeg = async (args: string[]): Promise<void> => {
    await run('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', ...args]);
  };
  const file = (name: string): string => path.join(work, name);

  const upload = async (fileName: string, options: { field?: string; apiKey?: string | null; query?: string; path?: string; extra?: [string, Blob, string][] } = {}): Promise<Response> => {
    const form = new FormData();
    const bytes = await readFile(file(fileName));
    form.append(options.field ?? 'ref_audio', new Blob([bytes]), fileName);
    for (const [name, blob, filename] of options.extra ?? []) form.append(name, blob, filename);
    const headers: Record<string, string> = options.apiKey === null ? {} : { 'x-api-key': options.apiKey ?? p.apiKey };
    return fetch(`${p.url}${options.path ?? '/api/reference/validate'}${options.query ?? ''}`, { method: 'POST', body: form, headers });
  };
  const validate = async (fileName: string, query = ''): Promise<Validation> => {
    const res = await upload(fileName, { query });
    const text = await res.text();
    assert.equal(res.status, 200, text);
    return JSON.parse(text) as Validation;
  };
  const codes = (v: Validation): string[] => v.warnings.map((w) => w.code);

  before(async () => {
    work = await mkdtemp(path.join(tmpdir(), 'tts-ref-test-'));
    uploadsFacade = path.join(work, 'uploads-facade');
    uploadsNode = path.join(work, 'uploads-node');
    p = await startPlatform({ node: { uploadTmpDir: uploadsNode }, facade: { uploadTmpDir: uploadsFacade, maxUploadBytes: UPLOAD_CAP } });
    speechWav = file('speech.wav');
    await run('flite', ['-voice', 'slt', '-t', 'Please call Stella and ask her to bring these things with her from the store.', '-o', speechWav]);
    const s = speechWav;
    await Promise.all([
      ffmpeg(['-i', s, '-c:a', 'libmp3lame', '-b:a', '64k', file('speech.mp3')]),
      ffmpeg(['-i', s, '-c:a', 'flac', file('speech.flac')]),
      ffmpeg(['-i', s, '-c:a', 'libopus', '-b:a', '32k', file('speech.ogg')]),
      ffmpeg(['-i', s, '-c:a', 'aac', '-b:a', '64k', file('speech.m4a')]),
      ffmpeg(['-i', s, '-c:a', 'libopus', '-b:a', '32k', file('speech.webm')]),
      ffmpeg(['-i', s, '-ac', '2', '-ar', '44100', file('stereo.wav')]),
      ffmpeg(['-i', s, '-ar', '8000', file('narrow.wav')]),
      ffmpeg(['-i', s, '-t', '0.1', file('blip.wav')]),
      ffmpeg(['-i', s, '-af', 'adelay=2500,apad=pad_dur=2.5', file('padded.wav')]),
      ffmpeg(['-i', s, '-af', 'volume=24dB', '-c:a', 'pcm_s16le', file('clipped.wav')]),
      ffmpeg(['-i', s, '-af', 'volume=-38dB', file('quiet.wav')]),
      // Speech 10 dB above steady white noise.
      ffmpeg(['-i', s, '-f', 'lavfi', '-i', 'anoisesrc=color=white:amplitude=0.05:sample_rate=16000:seed=7', '-filter_complex', '[0:a][1:a]amix=inputs=2:duration=first:normalize=0', file('noisy.wav')]),
      // Ten minutes of speech as MP3 (about 2.4 MB at 32 kb/s), within the upload limit.
      ffmpeg(['-stream_loop', '-1', '-i', s, '-t', '600', '-c:a', 'libmp3lame', '-b:a', '32k', file('long.mp3')]),
    ]);
    await run('flite', ['-voice', 'rms', '-t', 'The weather today is sunny with a light breeze and six spoons of fresh snow peas.', '-o', file('rms.wav')]);
    await run('flite', ['-voice', 'slt', '-t', 'The weather today is sunny with a light breeze and six spoons of fresh snow peas.', '-o', file('slt2.wav')]);
    await ffmpeg(['-i', s, '-i', file('rms.wav'), '-filter_complex', '[0:a][1:a]concat=n=2:v=0:a=1', file('two-speakers.wav')]);
    await ffmpeg(['-i', s, '-i', file('slt2.wav'), '-filter_complex', '[0:a][1:a]concat=n=2:v=0:a=1', file('one-speaker.wav')]);
    await writeFile(file('notes.txt'), 'This is not audio at all, just text.\n'.repeat(50));
    const wav = await readFile(speechWav);
    await writeFile(file('truncated.wav'), wav.subarray(0, 44 + 1000));
    await writeFile(file('header-only.wav'), wav.subarray(0, 30));
    await writeFile(file('empty.wav'), new Uint8Array(0));
    await writeFile(file('huge.wav'), Buffer.concat([wav.subarray(0, 44), Buffer.alloc(UPLOAD_CAP + 1024 * 1024, 1)]));
  });
  after(async () => {
    await p.stop();
    await rm(work, { recursive: true, force: true });
  });

  test('a clean 16 kHz mono clip passes, is measured and stored for its owner', async () => {
    const v = await validate('speech.wav');
    assert.equal(v.ok, true);
    assert.equal(v.passed, true, JSON.stringify(v.warnings));
    assert.deepEqual([v.reference_guideline.min_sec, v.reference_guideline.max_sec], [3, 10]);
    assert.deepEqual([v.audio.suffix, v.audio.sample_rate, v.audio.channels, v.audio.codec], ['.wav', 16000, 1, 'pcm_s16le']);
    assert.ok(v.audio.duration_sec > 3 && v.audio.duration_sec < 7, `${v.audio.duration_sec} s`);
    assert.deepEqual(v.failed_checks, []);
    assert.deepEqual(codes(v), [], JSON.stringify(v.warnings));
    assert.ok(v.metrics.speech_ratio > 0.6, `speech ratio ${v.metrics.speech_ratio}`);
    assert.ok(v.metrics.median_f0_hz > 120 && v.metrics.median_f0_hz < 260, `slt median F0 ${v.metrics.median_f0_hz} Hz`);
    assert.ok(v.metrics.snr_db >= 30, `snr ${v.metrics.snr_db}`);
    assert.match(v.reference_id ?? '', /^ref_[A-Za-z0-9_-]{8,}$/);
    const expires = Date.parse(v.expires_at ?? '');
    assert.ok(Math.abs(expires - Date.now() - 24 * 3_600_000) < 60_000, 'kept 24 h by default');

    const list = (await (await p.get('/api/reference/clips')).json()) as { data: { reference_id: string; passed: boolean; duration_sec: number }[]; retention_hours: number };
    assert.equal(list.retention_hours, 24);
    const mine = list.data.find((c) => c.reference_id === v.reference_id);
    assert.ok(mine, 'listed for its owner');
    assert.equal(mine.passed, true);
    const one = await p.get(`/api/reference/clips/${v.reference_id}`);
    assert.equal(one.status, 200);
    assert.equal(((await one.json()) as { sha256: string }).sha256.length, 64);

    // Another key sees nothing, and cannot delete it.
    const other = await p.createKey({ name: 'other' });
    const foreign = await p.get(`/api/reference/clips/${v.reference_id}`, { 'x-api-key': other.apiKey });
    assert.equal(foreign.status, 404);
    assert.equal(((await foreign.json()) as { code: string }).code, 'REFERENCE_NOT_FOUND');
    const theirs = (await (await p.get('/api/reference/clips', { 'x-api-key': other.apiKey })).json()) as { data: unknown[] };
    assert.equal(theirs.data.length, 0);
    const stolen = await fetch(`${p.url}/api/reference/clips/${v.reference_id}`, { method: 'DELETE', headers: { 'x-api-key': other.apiKey } });
    assert.equal(stolen.status, 404);

    const deleted = await fetch(`${p.url}/api/reference/clips/${v.reference_id}`, { method: 'DELETE', headers: { 'x-api-key': p.apiKey } });
    assert.equal(deleted.status, 200);
    assert.equal((await p.get(`/api/reference/clips/${v.reference_id}`)).status, 404);
  });

  test('every accepted container decodes on the node: mp3, flac, ogg/opus, m4a/aac, webm', async () => {
    const expected: Record<string, string> = { 'speech.mp3': 'mp3', 'speech.flac': 'flac', 'speech.ogg': 'opus', 'speech.m4a': 'aac', 'speech.webm': 'opus' };
    for (const [name, codec] of Object.entries(expected)) {
      const v = await validate(name, '?store=false');
      assert.equal(v.audio.codec, codec, name);
      assert.equal(v.audio.suffix, path.extname(name), name);
      assert.ok(v.audio.duration_sec > 3 && v.audio.duration_sec < 7, `${name}: ${v.audio.duration_sec} s`);
      assert.equal(v.audio.channels, 1, name);
      assert.ok(v.metrics.speech_ratio > 0.5, `${name}: speech ratio ${v.metrics.speech_ratio}`);
      assert.equal(v.reference_id, null, 'store=false keeps nothing');
    }
  });

  test('guideline failures answer 200 with passed false and the reason', async () => {
    const stereo = await validate('stereo.wav', '?store=false');
    assert.equal(stereo.passed, false);
    assert.deepEqual(stereo.failed_checks, ['NOT_MONO']);
    assert.ok(codes(stereo).includes('STEREO'));
    assert.equal(stereo.audio.sample_rate, 44100);

    const narrow = await validate('narrow.wav', '?store=false');
    assert.deepEqual(narrow.failed_checks, ['LOW_SAMPLE_RATE']);
    assert.ok(codes(narrow).includes('LOW_SAMPLE_RATE'));

    const blip = await validate('blip.wav', '?store=false');
    assert.equal(blip.passed, false);
    assert.deepEqual(blip.failed_checks, ['TOO_SHORT']);
    assert.ok(blip.audio.duration_sec < 0.2);

    const long = await validate('long.mp3');
    assert.equal(long.passed, false);
    assert.deepEqual(long.failed_checks, ['TOO_LONG']);
    assert.ok(Math.abs(long.audio.duration_sec - 600) < 2, `${long.audio.duration_sec} s`);
    assert.equal(long.reference_id, null, 'a 10-minute clip is validated, not stored');
  });

  test('quality warnings: silence at the edges, clipping, too quiet, noise', async () => {
    const padded = await validate('padded.wav', '?store=false');
    assert.ok(codes(padded).includes('LONG_LEADING_SILENCE'), JSON.stringify(padded.warnings));
    assert.ok(codes(padded).includes('LONG_TRAILING_SILENCE'), JSON.stringify(padded.warnings));
    assert.ok(padded.metrics.leading_silence_sec > 1.5 && padded.metrics.leading_silence_sec < 3.2, `${padded.metrics.leading_silence_sec}`);

    const clipped = await validate('clipped.wav', '?store=false');
    assert.ok(codes(clipped).includes('CLIPPING'), JSON.stringify(clipped.warnings));
    assert.ok(clipped.metrics.clipped_ratio > 0.001);

    const quiet = await validate('quiet.wav', '?store=false');
    assert.ok(codes(quiet).includes('TOO_QUIET'), `${quiet.metrics.speech_level_dbfs} dBFS ${JSON.stringify(quiet.warnings)}`);

    const noisy = await validate('noisy.wav', '?store=false');
    assert.ok(codes(noisy).includes('LOW_SNR'), `${noisy.metrics.snr_db} dB ${JSON.stringify(noisy.warnings)}`);
    const clean = await validate('speech.wav', '?store=false');
    assert.ok(!codes(clean).includes('LOW_SNR') && !codes(clean).includes('CLIPPING') && !codes(clean).includes('TOO_QUIET'));
  });

  test('transcription: Vosk recognizes the words, with timings and confidences', async () => {
    const res = await upload('speech.wav', { path: '/api/reference/transcribe' });
    const body = (await res.json()) as { text: string; language: string; confidence: number; words: { word: string; start_sec: number; end_sec: number; confidence: number }[]; model: string };
    assert.equal(res.status, 200, JSON.stringify(body));
    assert.equal(body.language, 'en-US');
    assert.equal(body.model, 'vosk-model-small-en-us-android');
    const said = 'please call stella and ask her to bring these things with her from the store'.split(' ');
    const heard = body.text.split(' ');
    const hits = said.filter((w) => heard.includes(w)).length;
    assert.ok(hits >= said.length - 4, `heard "${body.text}"`);
    assert.ok(body.confidence > 0.5 && body.confidence <= 1, `confidence ${body.confidence}`);
    assert.equal(body.words.length, heard.length);
    for (let i = 1; i < body.words.length; i++) assert.ok(body.words[i]!.start_sec >= body.words[i - 1]!.end_sec - 0.01, 'word timings ascend');
    const mp3 = (await (await upload('speech.mp3', { path: '/api/reference/transcribe' })).json()) as { text: string };
    assert.ok(mp3.text.includes('store'), `mp3: "${mp3.text}"`);

    const v = await validate('speech.wav', '?store=false&transcribe=true');
    assert.ok(v.metrics.speech_ratio > 0);
    const withText = v as unknown as { transcription: { text: string } | null; metrics: { words_per_minute: number } };
    assert.ok(withText.transcription?.text.includes('store'));
    assert.ok(withText.metrics.words_per_minute > 100 && withText.metrics.words_per_minute < 300, `${withText.metrics.words_per_minute} wpm`);
  });

  test('more than one speaker is flagged by the speaker-change score; one speaker is not', async () => {
    const two = await validate('two-speakers.wav', '?store=false');
    assert.ok(codes(two).includes('MULTIPLE_SPEAKERS'), JSON.stringify(two.warnings));
    const one = await validate('one-speaker.wav', '?store=false');
    assert.ok(!codes(one).includes('MULTIPLE_SPEAKERS'), JSON.stringify(one.warnings));
    const metrics = (v: unknown) => (v as { metrics: { speaker_windows: number; speaker_change_score: number } }).metrics;
    assert.ok(metrics(one).speaker_windows >= 2 && metrics(one).speaker_change_score < 2.4, JSON.stringify(metrics(one)));
    assert.ok(metrics(two).speaker_change_score > 2.4, JSON.stringify(metrics(two)));
  });

  test('bad uploads get stable 4xx codes, never a 500, and leave no temporary file', async () => {
    const expectCode = async (res: Response, status: number, code: string): Promise<void> => {
      const body = (await res.json()) as { code?: string; detail?: unknown };
      assert.equal(res.status, status, JSON.stringify(body));
      assert.equal(body.code, code, JSON.stringify(body));
    };
    // Text is no accepted container (judged from its bytes); a WAV header without samples does not decode.
    await expectCode(await upload('notes.txt'), 422, 'AUDIO_CONTAINER_UNSUPPORTED');
    await expectCode(await upload('header-only.wav'), 422, 'AUDIO_DECODE_FAILED');
    await expectCode(await upload('empty.wav'), 422, 'UPLOAD_EMPTY');
    await expectCode(await upload('huge.wav'), 413, 'UPLOAD_TOO_LARGE');
    await expectCode(await upload('speech.wav', { field: 'audio' }), 422, 'VALIDATION_FAILED');
    await expectCode(await upload('speech.wav', { extra: [['ref_audio2', new Blob([new Uint8Array(10)]), 'x.wav']] }), 422, 'UPLOAD_TOO_MANY_FILES');
    await expectCode(await upload('speech.wav', { apiKey: null }), 401, 'AUTH_KEY_MISSING');
    await expectCode(await upload('notes.txt', { path: '/api/reference/transcribe' }), 422, 'AUDIO_CONTAINER_UNSUPPORTED');
    const truncated = await upload('truncated.wav');
    assert.ok(truncated.status === 200 || truncated.status === 422, `truncated: ${truncated.status}`);
    await truncated.arrayBuffer();

    // A body without Content-Length is refused once the file passes the cap, not after reading it all.
    const chunked = await new Promise<{ status: number; body: string; sentBytes: number }>((resolve, reject) => {
      const boundary = 'x-boundary-123';
      const req = request(`${p.url}/api/reference/validate`, { method: 'POST', headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'transfer-encoding': 'chunked', 'x-api-key': p.apiKey } });
      let sent = 0;
      let answered = false;
      req.on('response', (res) => {
        answered = true;
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, sentBytes: sent }));
      });
      req.on('error', (err) => (answered ? undefined : reject(err)));
      req.write(`--${boundary}\r\nContent-Disposition: form-data; name="ref_audio"; filename="big.wav"\r\nContent-Type: audio/wav\r\n\r\n`);
      const piece = Buffer.alloc(256 * 1024, 7);
      const pump = (): void => {
        // Up to 8 times the cap: the answer must come long before.
        while (!answered && sent < 8 * UPLOAD_CAP) {
          sent += piece.length;
          if (!req.write(piece)) {
            req.once('drain', pump);
            return;
          }
        }
        if (!answered) req.end(`\r\n--${boundary}--\r\n`);
      };
      pump();
    });
    assert.equal(chunked.status, 413, chunked.body);
    assert.equal((JSON.parse(chunked.body) as { code: string }).code, 'UPLOAD_TOO_LARGE');
    assert.ok(chunked.sentBytes < 8 * UPLOAD_CAP, 'answered before the client sent everything');

    // Every temporary file is gone once the answers are out.
    for (const dir of [uploadsFacade, uploadsNode]) {
      const left = await readdir(dir).catch(() => [] as string[]);
      assert.deepEqual(left, [], `${dir} still holds ${left.join(', ')}`);
    }
  });

  test('an expired clip is never served and the cleanup deletes it', async () => {
    const v = await validate('speech.wav');
    const db = await openDatabase({ url: TEST_DATABASE_URL, schema: p.facade.deps.config.dbSchema });
    try {
      await db.query(`UPDATE reference_audio SET expires_at = now() - interval '1 minute' WHERE reference_id = $1::text`, [v.reference_id]);
    } finally {
      await db.close();
    }
    assert.equal((await p.get(`/api/reference/clips/${v.reference_id}`)).status, 404);
    const report = (await (await fetch(`${p.url}/api/system/cleanup/run`, { method: 'POST', headers: { 'x-admin-key': p.adminKey } })).json()) as { items: { name: string; removed: number }[] };
    assert.equal(report.items.find((i) => i.name === 'reference_audio')?.removed, 1);
  });
});
