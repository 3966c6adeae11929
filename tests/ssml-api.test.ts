/**
 * The SSML subset end to end: facade -> scheduler -> inference node over real gRPC with real
 * engines. Breaks are measured as silence in the decoded audio (RMS over 20 ms windows), `<sub>`
 * and `<prosody rate>` by the change in duration; bad SSML is refused with 422 SSML_INVALID naming
 * the element and position before any node work; text without `<speak>` is read as text.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { decodeWav, measurePitch } from '@tts/inference-node/testing';
import { startPlatform, waitFor, type TestPlatform } from './support/platform.js';

const WINDOW_SEC = 0.02;

/** Decoded samples of a WAV answer. */
async function wavOf(res: Response): Promise<{ samples: Float32Array; sampleRate: number }> {
  assert.equal(res.status, 200, await res.clone().text());
  const wav = decodeWav(new Uint8Array(await res.arrayBuffer()));
  return { samples: Float32Array.from(wav.samples), sampleRate: wav.sampleRate };
}

/**
 * Longest run of 20 ms windows whose RMS is under 2 % of the loudest window's, in seconds. A break
 * measures up to ~0.2 s longer than asked: the speech on either side keeps the 80 ms pads of edge
 * trimming, and its fade below 2 % counts as silence.
 */
function longestSilenceSec(audio: { samples: Float32Array; sampleRate: number }): number {
  const size = Math.round(WINDOW_SEC * audio.sampleRate);
  const levels: number[] = [];
  for (let at = 0; at + size <= audio.samples.length; at += size) {
    let sum = 0;
    for (let i = at; i < at + size; i++) sum += audio.samples[i]! ** 2;
    levels.push(Math.sqrt(sum / size));
  }
  const threshold = 0.02 * Math.max(...levels);
  let longest = 0;
  let run = 0;
  for (const level of levels) {
    run = level < threshold ? run + 1 : 0;
    longest = Math.max(longest, run);
  }
  return longest * WINDOW_SEC;
}

const durationOf = (audio: { samples: Float32Array; sampleRate: number }): number => audio.samples.length / audio.sampleRate;

describe('SSML', () => {
  let p: TestPlatform;
  before(async () => {
    p = await startPlatform();
  });
  after(async () => {
    await p.stop();
  });

  test('GET /api/capabilities says SSML is read', async () => {
    const caps = (await (await p.get('/api/capabilities')).json()) as { features: Record<string, boolean> };
    assert.equal(caps.features['ssml'], true);
  });

  for (const voice of ['flite:slt', 'espeak:en-us', 'festival:slt']) {
    test(`${voice}: a 1 s <break> is a 1 s silence in the audio`, async (t) => {
      const plain = await wavOf(await p.post('/api/tts', { text: '<speak>Hello there. How are you today?</speak>', voice, format: 'wav' }));
      const broken = await wavOf(await p.post('/api/tts', { text: '<speak>Hello there.<break time="1s"/>How are you today?</speak>', voice, format: 'wav' }));
      const gap = longestSilenceSec(broken);
      t.diagnostic(`${voice}: longest silence ${gap.toFixed(2)} s with the break, ${longestSilenceSec(plain).toFixed(2)} s without; ${durationOf(plain).toFixed(2)} s -> ${durationOf(broken).toFixed(2)} s`);
      assert.ok(gap >= 0.95 && gap <= 1.35, `${voice}: longest silence ${gap.toFixed(2)} s with a 1 s break`);
      assert.ok(longestSilenceSec(plain) < 0.6, `${voice}: longest silence ${longestSilenceSec(plain).toFixed(2)} s without a break`);
      assert.ok(durationOf(broken) - durationOf(plain) > 0.6, `${voice}: ${durationOf(plain).toFixed(2)} s -> ${durationOf(broken).toFixed(2)} s`);
    });
  }

  test('<sub> reads its alias instead of the text', async () => {
    const voice = 'flite:slt';
    const written = await wavOf(await p.post('/api/tts', { text: '<speak>The <sub alias="a">W3C</sub> met.</speak>', voice, format: 'wav' }));
    const spoken = await wavOf(await p.post('/api/tts', { text: '<speak>The <sub alias="World Wide Web Consortium">W3C</sub> met.</speak>', voice, format: 'wav' }));
    assert.ok(durationOf(spoken) - durationOf(written) > 0.6, `${durationOf(written).toFixed(2)} s -> ${durationOf(spoken).toFixed(2)} s`);
  });

  test('<prosody rate="x-slow"> slows its words down; <say-as> expands them', async () => {
    const voice = 'espeak:en-us';
    const normal = await wavOf(await p.post('/api/tts', { text: '<speak>We read this sentence at an ordinary pace.</speak>', voice, format: 'wav' }));
    const slow = await wavOf(await p.post('/api/tts', { text: '<speak><prosody rate="x-slow">We read this sentence at an ordinary pace.</prosody></speak>', voice, format: 'wav' }));
    assert.ok(durationOf(slow) > 1.5 * durationOf(normal), `${durationOf(normal).toFixed(2)} s -> ${durationOf(slow).toFixed(2)} s`);
    const digits = await wavOf(await p.post('/api/tts', { text: '<speak><say-as interpret-as="characters">12</say-as></speak>', voice, format: 'wav' }));
    const number = await wavOf(await p.post('/api/tts', { text: '<speak><say-as interpret-as="cardinal">1234567</say-as></speak>', voice, format: 'wav' }));
    assert.ok(durationOf(number) > 2 * durationOf(digits), `"one two" ${durationOf(digits).toFixed(2)} s, "one million ..." ${durationOf(number).toFixed(2)} s`);
  });

  test('<prosody pitch="+7st"> raises the voice by about 7 semitones', async (t) => {
    const sentence = 'This is how my voice sounds today.';
    const medianF0 = (audio: { samples: Float32Array; sampleRate: number }): number =>
      measurePitch(audio.samples, audio.sampleRate, [{ startSec: 0, endSec: durationOf(audio) }]).medianHz;
    const normal = medianF0(await wavOf(await p.post('/api/tts', { text: `<speak>${sentence}</speak>`, voice: 'flite:slt', format: 'wav' })));
    const high = medianF0(await wavOf(await p.post('/api/tts', { text: `<speak><prosody pitch="+7st">${sentence}</prosody></speak>`, voice: 'flite:slt', format: 'wav' })));
    const semitones = 12 * Math.log2(high / normal);
    t.diagnostic(`median F0 ${normal.toFixed(0)} Hz -> ${high.toFixed(0)} Hz: ${semitones.toFixed(1)} semitones`);
    assert.ok(semitones > 5.5 && semitones < 8.5, `${semitones.toFixed(1)} semitones`);
  });

  test('<phoneme> speaks its IPA on espeak-ng, its text on flite', async () => {
    const text = '<speak><phoneme alphabet="ipa" ph="ˌsuːpɚkˌælɪfɹˌædʒɪlˌɪstɪkˌɛkspiːˌælɪdˈoʊʃəs">Hi</phoneme></speak>';
    const espeak = await wavOf(await p.post('/api/tts', { text, voice: 'espeak:en-us', format: 'wav' }));
    const flite = await wavOf(await p.post('/api/tts', { text, voice: 'flite:slt', format: 'wav' }));
    assert.ok(durationOf(espeak) > 2, `espeak-ng: ${durationOf(espeak).toFixed(2)} s for the long IPA word`);
    assert.ok(durationOf(flite) < 1, `flite: ${durationOf(flite).toFixed(2)} s for "Hi"`);
  });

  test('/v1/audio/speech reads SSML in `input`', async () => {
    const res = await p.post('/v1/audio/speech', { model: 'tts-1', input: '<speak>Hi.<break time="800ms"/>Bye.</speak>', voice: 'flite:slt', response_format: 'wav' });
    const gap = longestSilenceSec(await wavOf(res));
    assert.ok(gap >= 0.75 && gap <= 1.15, `longest silence ${gap.toFixed(2)} s with an 800 ms break`);
  });

  test('a web job renders its SSML', async () => {
    const res = await fetch(`${p.url}/api/web/jobs/tts`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-api-key': p.apiKey },
      body: new URLSearchParams({ text: '<speak>Web part.<break time="1s"/>Done.</speak>', voice: 'flite:slt', format: 'wav' }).toString(),
    });
    assert.equal(res.status, 200, await res.clone().text());
    const { job_id, job_token } = (await res.json()) as { job_id: string; job_token: string };
    let status = '';
    await waitFor(async () => {
      status = ((await (await fetch(`${p.url}/api/web/jobs/${job_id}?token=${job_token}`)).json()) as { status: string }).status;
      return status === 'completed' || status === 'failed';
    }, 60_000, 'the SSML web job');
    assert.equal(status, 'completed');
    const gap = longestSilenceSec(await wavOf(await fetch(`${p.url}/api/web/jobs/${job_id}/audio?token=${job_token}`)));
    assert.ok(gap >= 0.95 && gap <= 1.35, `longest silence ${gap.toFixed(2)} s with a 1 s break`);
  });

  test('a job renders its SSML', async () => {
    const submitted = await p.post('/api/jobs/tts', { text: '<speak>First part.<break time="1500ms"/>Second part.</speak>', voice: 'flite:slt', format: 'wav' });
    assert.equal(submitted.status, 202, await submitted.clone().text());
    const { job_id } = (await submitted.json()) as { job_id: string };
    let status = '';
    await waitFor(async () => {
      status = ((await (await p.get(`/api/jobs/${job_id}`)).json()) as { status: string }).status;
      return status === 'completed' || status === 'failed';
    }, 60_000, 'the SSML job');
    assert.equal(status, 'completed');
    const gap = longestSilenceSec(await wavOf(await p.get(`/api/jobs/${job_id}/audio`)));
    assert.ok(gap >= 1.45 && gap <= 1.85, `longest silence ${gap.toFixed(2)} s with a 1.5 s break`);
  });

  test('text without <speak> is text: "<" and ">" are read, not parsed', async () => {
    const voice = 'flite:slt';
    const text = await wavOf(await p.post('/api/tts', { text: 'a < b > c', voice, format: 'wav' }));
    const words = await wavOf(await p.post('/api/tts', { text: 'a is less than b is greater than c', voice, format: 'wav' }));
    assert.ok(Math.abs(durationOf(text) - durationOf(words)) < 0.25 * durationOf(words), `${durationOf(text).toFixed(2)} s vs ${durationOf(words).toFixed(2)} s`);
    const tagged = await p.post('/api/tts', { text: 'Say <b>bold</b> and <break time="1s"/> aloud.', voice, format: 'wav' });
    assert.equal(tagged.status, 200);
    assert.ok(longestSilenceSec(await wavOf(tagged)) < 0.6, 'a <break> outside <speak> made no pause');
  });

  const refusals = [
    { name: 'malformed XML', text: '<speak>Hello <break time="1s"></speak>', parts: ['malformed XML', 'line 1, column 31'] },
    { name: 'an unknown element', text: '<speak>\n  Hello <audio src="x.wav"/></speak>', parts: ['<audio>', 'line 2, column 9'] },
    { name: 'an unknown attribute', text: '<speak><prosody volume="loud">x</prosody></speak>', parts: ['<prosody>', '"volume"', 'line 1, column 8'] },
    { name: 'a break over 10 s', text: '<speak>Wait<break time="11s"/>now</speak>', parts: ['<break>', 'longer than 10 s', 'line 1, column 12'] },
  ];
  for (const c of refusals) {
    test(`${c.name}: 422 SSML_INVALID with the element and position, on every speech operation`, async () => {
      const tts = await p.post('/api/tts', { text: c.text, voice: 'flite:slt' });
      assert.equal(tts.status, 422);
      const body = (await tts.json()) as { code: string; detail: { loc: string[]; msg: string }[] };
      assert.equal(body.code, 'SSML_INVALID');
      const message = body.detail[0]?.msg ?? '';
      for (const part of c.parts) assert.ok(message.includes(part), `"${message}" lacks "${part}"`);
      assert.deepEqual(body.detail[0]?.loc, ['body', 'text']);
      const openai = await p.post('/v1/audio/speech', { model: 'tts-1', input: c.text, voice: 'alloy' });
      assert.equal(openai.status, 422);
      const error = ((await openai.json()) as { error: { platform_code: string; param: string; message: string } }).error;
      assert.equal(error.platform_code, 'SSML_INVALID');
      assert.equal(error.param, 'input');
      for (const part of c.parts) assert.ok(error.message.includes(part), `"${error.message}" lacks "${part}"`);
      const job = await p.post('/api/jobs/tts', { text: c.text, voice: 'flite:slt' });
      assert.equal(job.status, 422);
      assert.equal(((await job.json()) as { code: string }).code, 'SSML_INVALID');
      const web = await fetch(`${p.url}/api/web/jobs/tts`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-api-key': p.apiKey },
        body: new URLSearchParams({ text: c.text, voice: 'flite:slt' }).toString(),
      });
      assert.equal(web.status, 422);
      assert.equal(((await web.json()) as { code: string }).code, 'SSML_INVALID');
    });
  }
});
