/**
 * Word timings through the pipeline: `placeWords` maps an engine's timings into output time
 * (stretch, cut, clamp, offset, no overlap); on a real node (espeak-ng and flite) each rendered
 * piece's words lie inside that piece's span of the output, at a resampled rate too, a streamed
 * synthesis carries the same words as a whole one (flite), and an SSML break is a gap between words.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setLogSink } from '@tts/common';
import { start, type RunningNode } from '../server.js';
import { planSynthesis, renderAudio, synthesizeStreaming, synthesizeWhole, type SynthesisJob, type SynthesisStats } from './pipeline.js';
import { placeWords, type WordTiming } from './word-timings.js';

setLogSink(() => undefined);

const near = (a: number, b: number, tolerance = 1e-9): boolean => Math.abs(a - b) <= tolerance;

describe('placeWords', () => {
  const engine: WordTiming[] = [
    { word: 'one', start: 0.1, end: 0.5 },
    { word: 'two', start: 0.6, end: 1.0 },
  ];

  it('divides by the stretch, subtracts the cut, clamps to the piece and adds the offset', () => {
    const placed = placeWords(engine, { stretch: 2, cutSec: 0.02, lengthSec: 0.45, offsetSec: 3, notBeforeSec: 0 });
    assert.deepEqual(placed.map((w) => w.word), ['one', 'two']);
    assert.ok(near(placed[0]!.start, 3.03, 1e-9) && near(placed[0]!.end, 3.23, 1e-9), JSON.stringify(placed[0]));
    assert.ok(near(placed[1]!.start, 3.28) && near(placed[1]!.end, 3.45), `clamped to the piece: ${JSON.stringify(placed[1])}`);
  });

  it('never starts a word before the previous one ended, nor before the piece', () => {
    const placed = placeWords([{ word: 'a', start: 0, end: 0.3 }, { word: 'b', start: 0.2, end: 0.25 }], { stretch: 1, cutSec: 0.1, lengthSec: 1, offsetSec: 2, notBeforeSec: 2.05 });
    const ms = (t: number): number => Math.round(t * 1000);
    assert.deepEqual(placed.map((w) => [w.word, ms(w.start), ms(w.end)]), [['a', 2050, 2200], ['b', 2200, 2200]]);
    assert.ok(placed[1]!.start >= placed[0]!.end);
  });
});

describe('word timings on a node', () => {
  let node: RunningNode;

  before(async () => {
    node = await start({ host: '127.0.0.1', port: 0, nodeId: 'word-timings-test', engines: ['espeak', 'flite'], defaultVoice: 'espeak:en-us', fliteWorkers: 1, warmup: false });
  });

  after(async () => {
    await node.stop();
  });

  const job = (text: string, extra: Partial<SynthesisJob> = {}): SynthesisJob => ({
    requestId: 'words', text, voice: 'espeak:en-us', engine: '', speed: 1, format: 'pcm', sampleRate: 0, language: '', rawText: false, ...extra,
  });
  const newStats = (): SynthesisStats => ({ characters: 0, sentences: 0, audioSeconds: 0, computeSeconds: 0, timeToFirstAudioMs: 0, queueMs: 0, encodeMs: 0, maxBatchSize: 1, watermarkMs: 0, watermarkSetupMs: 0, loadMs: 0 });

  for (const [voice, sampleRate] of [['espeak:en-us', 0], ['flite:slt', 8000]] as const) {
    it(`${voice} at ${sampleRate || 'its own'} Hz: each piece's words lie in that piece's span of the output, one per token, in order`, async () => {
      const deps = node.context.deps;
      const text = 'The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background. It is easy.';
      const plan = planSynthesis(job(text, { voice, sampleRate }), deps);
      let emitted = 0;
      const all: WordTiming[] = [];
      for await (const piece of renderAudio(plan, deps, newStats())) {
        const from = emitted / plan.outputRate;
        emitted += piece.samples.length;
        const to = emitted / plan.outputRate;
        // The resampler holds back its filter's half-length of each piece until the next: 20 ms of slack.
        for (const w of piece.words) assert.ok(w.start >= from - 0.02 && w.end <= to + 0.02, `${w.word} ${w.start}-${w.end} s in the piece at ${from}-${to} s`);
        all.push(...piece.words);
      }
      assert.deepEqual(all.map((w) => w.word.replace(/[^\p{L}]/gu, '').toLowerCase()), text.split(/\s+/).map((t) => t.replace(/[^\p{L}]/gu, '').toLowerCase()));
      all.forEach((w, i) => assert.ok(w.end > w.start && (i === 0 || w.start >= all[i - 1]!.end), `${w.word}: ${w.start}-${w.end} after ${all[i - 1]?.end}`));
      assert.ok(all.at(-1)!.end <= emitted / plan.outputRate + 1e-6);
    });
  }

  // flite renders a text the same way call after call (espeak-ng's timings move by some milliseconds
  // from call to call), so the two ways of delivering it can be compared to the millisecond.
  it('a streamed synthesis carries the words of a whole one; a 1 s break is a gap of about 1 s', async () => {
    const deps = node.context.deps;
    const text = '<speak>Hello there.<break time="1s"/>How are you today?</speak>';
    const whole = await synthesizeWhole(planSynthesis(job(text, { voice: 'flite:slt', format: 'wav' }), deps), deps);
    const streamed: WordTiming[] = [];
    let chunks = 0;
    for await (const chunk of synthesizeStreaming(planSynthesis(job(text, { voice: 'flite:slt', format: 'mp3', streaming: true }), deps), deps)) {
      streamed.push(...chunk.words);
      chunks++;
    }
    assert.ok(chunks > 1);
    assert.deepEqual(streamed.map((w) => w.word), whole.words.map((w) => w.word));
    streamed.forEach((w, i) => assert.ok(near(w.start, whole.words[i]!.start, 0.005) && near(w.end, whole.words[i]!.end, 0.005), `${w.word}: streamed ${w.start}-${w.end}, whole ${whole.words[i]!.start}-${whole.words[i]!.end}`));
    const there = whole.words.findIndex((w) => /there/i.test(w.word));
    const gap = whole.words[there + 1]!.start - whole.words[there]!.end;
    assert.ok(gap >= 0.9 && gap < 1.6, `gap ${gap.toFixed(3)} s across a 1 s break`);
    assert.ok(whole.words.at(-1)!.end <= whole.stats.audioSeconds + 1e-6);
  });
});
