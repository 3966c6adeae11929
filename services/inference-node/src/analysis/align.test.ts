/**
 * Forced alignment on real speech (flite and espeak-ng through their engines, Vosk installed by
 * `npm run models`): every token in order, most of them placed by the recognizer, inside the audio,
 * near the engine's own timings; a token outside the vocabulary is interpolated between its
 * neighbours. Accuracy over 50 sentences per engine is bench/word-timing.ts's.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createLogger, setLogSink } from '@tts/common';
import { durationSec } from '../audio/pcm.js';
import type { EngineOutput, SynthesisEngine } from '../engines/engine.js';
import { createEspeakEngine } from '../engines/espeak/index.js';
import { createFliteEngine } from '../engines/flite/index.js';
import { loadNodeConfig } from '../config.js';
import { ALIGNMENT_FRAME_SEC, alignmentTokens, matchWords, type AlignedWord } from './align.js';
import type { SpeechModels } from './reference.js';
import { loadSpeechModels } from './speech-models.js';

const TEXTS = ['The birch canoe slid on the smooth planks.', 'Glue the sheet to the dark blue background, then rice is often served in round bowls.'];

/** Checks the shape of an alignment: the tokens in order, spans in order inside the audio. */
function assertShape(words: readonly AlignedWord[], text: string, seconds: number): void {
  assert.deepEqual(words.map((w) => w.word), alignmentTokens(text));
  let previousEnd = 0;
  for (const w of words) {
    assert.ok(w.start >= previousEnd - 1e-9 && w.end >= w.start && w.end <= seconds + 1e-9, `${w.word}: ${w.start}-${w.end} s after ${previousEnd} in ${seconds} s`);
    previousEnd = w.end;
  }
}

describe('forced word alignment', () => {
  let speech: SpeechModels;
  const engines: SynthesisEngine[] = [];
  const render = async (engine: SynthesisEngine, voice: string, text: string): Promise<EngineOutput> => {
    const [out] = await engine.synthesize([{ text, voice, speed: 1 }]);
    assert.ok(out);
    return out;
  };

  before(async () => {
    setLogSink(() => undefined);
    const loaded = await loadSpeechModels(loadNodeConfig(), createLogger('align-test'));
    assert.ok(loaded, 'Vosk is installed (npm run models -- install --all)');
    speech = loaded;
    engines.push(createFliteEngine({ workers: 1 }), createEspeakEngine());
    await Promise.all(engines.map((e) => e.load()));
  });
  after(async () => {
    await Promise.all(engines.map((e) => e.close()));
    await speech.close?.();
  });

  for (const [index, voice] of [[0, 'flite:slt'], [1, 'espeak:en-us']] as const) {
    it(`places the words of ${voice}'s speech near the engine's own timings`, async () => {
      for (const text of TEXTS) {
        const out = await render(engines[index]!, voice, text);
        const words = await speech.alignWords(out.audio, text);
        assertShape(words, text, durationSec(out.audio));
        assert.ok(words.filter((w) => w.covered).length >= words.length - 1, `covered: ${words.map((w) => `${w.word}${w.covered ? '' : '?'}`).join(' ')}`);
        for (const w of words) assert.ok(w.end > w.start, `${w.word} is a non-empty span`);
        // espeak-ng names no word for some unstressed ones ("on the smooth": no "the"); compared where both time a token.
        const engineOf = matchWords(words.map((w) => w.word.toLowerCase()), out.words!.map((w) => w.word.toLowerCase())).map((m) => (m?.same === true ? out.words![m.heard] : undefined));
        const errors = words.flatMap((w, i) => (engineOf[i] === undefined || !w.covered ? [] : [Math.abs(w.start - engineOf[i].start), Math.abs(w.end - engineOf[i].end)])).sort((a, b) => a - b);
        assert.ok(errors.length >= words.length, `${errors.length / 2} of ${words.length} tokens compared`);
        const median = errors[Math.floor(errors.length / 2)]!;
        assert.ok(median <= ALIGNMENT_FRAME_SEC, `median boundary error ${Math.round(median * 1000)} ms`);
      }
    });
  }

  it('interpolates a token outside the vocabulary between its neighbours, not covered', async () => {
    const text = 'The birch canoe slid on the zqxvbt smooth planks.';
    const out = await render(engines[0]!, 'flite:slt', text);
    const words = await speech.alignWords(out.audio, text);
    assertShape(words, text, durationSec(out.audio));
    const odd = words.findIndex((w) => w.word === 'zqxvbt');
    assert.equal(words[odd]!.covered, false);
    assert.ok(words[odd - 1]!.covered && words[odd + 1]!.covered, 'its neighbours are placed');
    assert.ok(words[odd]!.start >= words[odd - 1]!.end && words[odd]!.end <= words[odd + 1]!.start);
  });

  it('starts an interpolated first token where speech starts, not in the leading silence', async () => {
    const text = 'Zqxvbt, the birch canoe slid on the smooth planks.';
    const out = await render(engines[0]!, 'flite:slt', text);
    const words = await speech.alignWords(out.audio, text);
    assertShape(words, text, durationSec(out.audio));
    assert.equal(words[0]!.covered, false);
    // flite's slt leaves about 0.18 s of silence before the first phone (its first word's start).
    assert.ok(Math.abs(words[0]!.start - out.words![0]!.start) < 0.05, `first token from ${words[0]!.start} s, the engine's from ${out.words![0]!.start} s`);
  });

  it('answers no words for a text without any, and all tokens interpolated over silence', async () => {
    assert.deepEqual(await speech.alignWords({ samples: new Float32Array(16_000), sampleRate: 16_000 }, ' -- ... '), []);
    const silent = await speech.alignWords({ samples: new Float32Array(22_050), sampleRate: 22_050 }, 'Hello there.');
    assertShape(silent, 'Hello there.', 1);
  });
});
