import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { rms } from '../../audio/dsp.js';
import { durationSec, type PcmAudio } from '../../audio/pcm.js';
import { TtsError } from '@tts/common';
import { joinClauses, splitClauses } from './clauses.js';
import { createEspeakEngine, createEspeakPhonemizer, type EspeakEngine, type EspeakPhonemizer } from './index.js';
import { bcp47FromEspeak } from './voices.js';
import { isTtsError } from '@tts/common/testing';
import { HELLO, PARAGRAPH, assertWordTimings, audioOf, crashWorkerInFlight, workerPoolOf } from '../testing.js';

describe('espeak engine', () => {
  let engine: EspeakEngine;

  before(async () => {
    engine = createEspeakEngine();
    await engine.load();
  });

  after(async () => {
    await engine.close();
  });

  it('lists voices of many languages plus English variants, at 22050 Hz', () => {
    const voices = engine.voices();
    const byId = new Map(voices.map((v) => [v.id, v]));
    assert.ok(voices.length > 50, `${voices.length} voices`);
    assert.ok(voices.every((v) => v.sampleRate === 22_050 && v.engine === 'espeak' && v.id.startsWith('espeak:')));
    assert.equal(byId.get('espeak:en-us')?.language, 'en-US');
    assert.equal(byId.get('espeak:de')?.language, 'de');
    assert.equal(byId.get('espeak:fr-fr')?.language, 'fr-FR');
    assert.equal(byId.get('espeak:en-us+f3')?.gender, 'female');
    assert.equal(byId.get('espeak:en-us+m3')?.gender, 'male');
    assert.equal(new Set(voices.map((v) => v.id)).size, voices.length, 'ids are unique');
    assert.ok(!voices.some((v) => /mbrola/i.test(v.name)), 'mbrola voices are not listed');
  });

  it('speaks a short text in several languages', async () => {
    for (const voice of ['espeak:en-us', 'espeak:en-us+f3', 'espeak:de', 'espeak:fr-fr']) {
      const [out] = await engine.synthesize([{ text: HELLO, voice, speed: 1 }]);
      assert.ok(out);
      assert.equal(out.speedApplied, true);
      assert.equal(out.audio.sampleRate, 22_050);
      const sec = durationSec(out.audio);
      assert.ok(sec > 1 && sec < 5, `${voice}: ${sec} s`);
      assert.ok(rms(out.audio.samples) > 0.02, `${voice}: rms ${rms(out.audio.samples)}`);
    }
  });

  it('gives English variants distinct voices', async () => {
    const female = await audioOf(engine, { text: HELLO, voice: 'espeak:en-us+f3', speed: 1 });
    const male = await audioOf(engine, { text: HELLO, voice: 'espeak:en-us+m3', speed: 1 });
    assert.notDeepEqual(female.samples, male.samples);
  });

  it('applies speed natively through the speaking rate', async () => {
    const normal = await audioOf(engine, { text: HELLO, voice: 'espeak:en-us', speed: 1 });
    const [fast] = await engine.synthesize([{ text: HELLO, voice: 'espeak:en-us', speed: 2 }]);
    assert.ok(fast);
    assert.equal(fast.speedApplied, true);
    const ratio = durationSec(fast.audio) / durationSec(normal);
    assert.ok(ratio > 0.35 && ratio < 0.7, `ratio ${ratio}`);
    const [slowest] = await engine.synthesize([{ text: HELLO, voice: 'espeak:en-us', speed: 0.3 }]);
    assert.equal(slowest?.speedApplied, false, '0.3 is below 80 wpm: left to the node');
    assert.ok(slowest && Math.abs(slowest.audio.samples.length / normal.samples.length - 1) < 0.02, 'synthesized at speed 1');
  });

  it("reports each word's timing from espeak-ng's word and phoneme events, as written, and the timings follow the speed", async () => {
    const text = 'In 1999, Dr. Smith paid $20 for 3 apples.';
    const [normal] = await engine.synthesize([{ text, voice: 'espeak:en-us', speed: 1 }]);
    const words = assertWordTimings(normal!, text.split(' '));
    const [fast] = await engine.synthesize([{ text, voice: 'espeak:en-us', speed: 2 }]);
    const fastWords = assertWordTimings(fast!, text.split(' '));
    const ratio = fastWords[fastWords.length - 1]!.end / words[words.length - 1]!.end;
    const audioRatio = durationSec(fast!.audio) / durationSec(normal!.audio);
    assert.ok(Math.abs(ratio - audioRatio) < 0.08, `words ${ratio} vs audio ${audioRatio}`);
    const [accented] = await engine.synthesize([{ text: 'Café déjà vu.', voice: 'espeak:fr-fr', speed: 1 }]);
    assertWordTimings(accented!, ['Café', 'déjà', 'vu.']);
  });

  it('times every token, also the function words espeak-ng reads under the word before without an event of their own', async () => {
    // Without an event: "the" after "on" and "a" after "of" (the preposition's event covers both),
    // "once" after "at"; "1999" and "Dr." are read as several words or expanded, one token each.
    for (const text of ['The birch canoe slid on the smooth planks.', 'It is easy to tell the depth of a well.', 'The rope will bind the seven books at once.', 'Dr. Smith came home in 1999, from the sea.']) {
      const [out] = await engine.synthesize([{ text, voice: 'espeak:en-us', speed: 1 }]);
      const words = assertWordTimings(out!, text.split(' '));
      for (const [i, w] of words.entries()) assert.ok(w.end - w.start >= 0.03, `${text}: ${w.word} (${i}) lasts ${w.end - w.start} s`);
    }
  });

  it('serializes 8 parallel requests of mixed voices on its one thread', async () => {
    const voices = ['espeak:en-gb', 'espeak:de', 'espeak:en-us+f2', 'espeak:fr-fr'];
    const serial = new Map<string, PcmAudio>();
    for (const voice of voices) serial.set(voice, await audioOf(engine, { text: HELLO, voice, speed: 1 }));
    const inputs = Array.from({ length: 8 }, (_, i) => ({ text: HELLO, voice: voices[i % voices.length]!, speed: 1 }));
    const outs = await Promise.all(inputs.map((input) => audioOf(engine, input)));
    // espeak-ng output varies from run to run (up to ~3 % in length for the variants, which add
    // random pitch flutter); each answer must match its own voice, not just any clip.
    outs.forEach((audio, i) => {
      const expected = serial.get(inputs[i]!.voice)!.samples.length;
      assert.ok(Math.abs(audio.samples.length / expected - 1) < 0.05, `${inputs[i]!.voice}: ${audio.samples.length} vs ${expected}`);
      assert.ok(rms(audio.samples) > 0.02);
    });
  });

  it('replaces its thread when it dies mid-request; synthesis and phonemization go on', async () => {
    const phonemizer = createEspeakPhonemizer();
    try {
      assert.deepEqual(await phonemizer.phonemize('Hello.', 'en-us'), ['həlˈoʊ.']);
      await assert.rejects(crashWorkerInFlight(workerPoolOf(engine)), isTtsError('TTS_ENGINE_FAILED'));
      const audio = await audioOf(engine, { text: HELLO, voice: 'espeak:en-us', speed: 1 });
      assert.ok(rms(audio.samples) > 0.02);
      assert.deepEqual(await phonemizer.phonemize('Hello.', 'en-us'), ['həlˈoʊ.']);
    } finally {
      await phonemizer.close();
    }
  });

  it('rejects a cancelled request before and while it waits', async () => {
    await assert.rejects(engine.synthesize([{ text: HELLO, voice: 'espeak:en-us', speed: 1, signal: AbortSignal.abort() }]), isTtsError('TTS_CANCELLED'));
    const busy = audioOf(engine, { text: PARAGRAPH, voice: 'espeak:en-us', speed: 1 });
    const controller = new AbortController();
    const waiting = engine.synthesize([{ text: HELLO, voice: 'espeak:en-us', speed: 1, signal: controller.signal }]);
    controller.abort();
    await assert.rejects(waiting, isTtsError('TTS_CANCELLED'));
    assert.ok(durationSec(await busy) > 5);
  });

  it('rejects unknown voices and bad input with stable codes', async () => {
    await assert.rejects(engine.synthesize([{ text: HELLO, voice: 'espeak:xx-nowhere', speed: 1 }]), (err: unknown) => {
      assert.ok(err instanceof TtsError);
      assert.equal(err.code, 'TTS_VOICE_NOT_FOUND');
      assert.deepEqual(err.loc, ['body', 'voice']);
      return true;
    });
    await assert.rejects(engine.synthesize([{ text: HELLO, voice: 'flite:slt', speed: 1 }]), isTtsError('TTS_VOICE_NOT_FOUND'));
    await assert.rejects(engine.synthesize([{ text: HELLO, voice: 'espeak:en-us', speed: Number.NaN }]), isTtsError('TTS_SPEED_OUT_OF_RANGE'));
  });

  it('reads markup-like text literally (no SSML)', async () => {
    const audio = await audioOf(engine, { text: '<speak>less than</speak>', voice: 'espeak:en-us', speed: 1 });
    assert.ok(durationSec(audio) > 1, 'the tags are spoken, not interpreted');
  });

  it('speaks IPA given as phonemes (SSML <phoneme>) like the words it spells, and only then reads [[...]] as phonemes', async (t) => {
    const phonemizer = createEspeakPhonemizer();
    try {
      const sentence = 'A lighthouse keeper writes about the weather';
      const [ipa = ''] = await phonemizer.phonemize(sentence, 'en-us');
      const words = await audioOf(engine, { text: sentence, voice: 'espeak:en-us', speed: 1 });
      const spoken = await audioOf(engine, { text: sentence, phonemes: ipa, voice: 'espeak:en-us', speed: 1 });
      t.diagnostic(`"${ipa}": ${durationSec(words).toFixed(2)} s as words, ${durationSec(spoken).toFixed(2)} s as phonemes`);
      assert.ok(Math.abs(durationSec(spoken) - durationSec(words)) < 0.1 * durationSec(words), `${durationSec(spoken)} s vs ${durationSec(words)} s`);
      const other = await audioOf(engine, { text: 'x', phonemes: 'pəˈteɪtoʊ', voice: 'espeak:en-us', speed: 1 });
      assert.ok(durationSec(other) > 0.3 && durationSec(other) < 1.5, `potato: ${durationSec(other)} s`);
      // Without the phoneme flag the brackets are text: espeak reads the letters.
      const literal = await audioOf(engine, { text: "[[p@t'eItoU]]", voice: 'espeak:en-us', speed: 1 });
      assert.ok(durationSec(literal) > durationSec(other) + 0.3, `literal ${durationSec(literal)} s vs phonemes ${durationSec(other)} s`);
    } finally {
      await phonemizer.close();
    }
  });

  it('reports the real-time factor of a 60-word paragraph', async (t) => {
    const started = performance.now();
    const audio = await audioOf(engine, { text: PARAGRAPH, voice: 'espeak:en-us', speed: 1 });
    const rtf = (performance.now() - started) / 1000 / durationSec(audio);
    t.diagnostic(`espeak:en-us ${PARAGRAPH.split(/\s+/).length} words, ${durationSec(audio).toFixed(1)} s audio: RTF ${rtf.toFixed(3)}`);
    assert.ok(durationSec(audio) > 10);
  });
});

describe('espeak phonemizer', () => {
  let phonemizer: EspeakPhonemizer;

  before(() => {
    phonemizer = createEspeakPhonemizer();
  });

  after(async () => {
    await phonemizer.close();
  });

  it('returns one IPA string per sentence with punctuation re-inserted as Piper does', async () => {
    assert.deepEqual(await phonemizer.phonemize('Hello, world! How are you today?', 'en-us'), ['həlˈoʊ, wˈɜːld!', 'hˌaʊ ɑːɹ juː tədˈeɪ?']);
    assert.deepEqual(await phonemizer.phonemize('I am fine; thanks: really', 'en-us'), ['aɪɐm fˈaɪn; θˈæŋks: ɹˈiəli']);
  });

  it('uses the language of the voice and NFD-normalizes', async () => {
    const [french] = await phonemizer.phonemize('Bonjour le monde.', 'fr-fr');
    assert.ok(french?.startsWith('bɔ̃ʒˈuʁ'), String(french));
    assert.equal(french, french?.normalize('NFD'));
    const [german] = await phonemizer.phonemize('Guten Tag.', 'de');
    assert.ok(german?.includes('ɡˈuːtən'), String(german));
  });

  it('rejects an unknown espeak voice', async () => {
    await assert.rejects(phonemizer.phonemize('Hello.', 'xx-nowhere'), isTtsError('TTS_VOICE_NOT_FOUND'));
  });
});

describe('espeak clause splitting', () => {
  it('splits at clause and sentence punctuation followed by a space or the end', () => {
    assert.deepEqual(splitClauses('Pi is 3.14, roughly. Meet at 10:30!'), [
      { text: 'Pi is 3.14', mark: ',', endsSentence: false },
      { text: 'roughly', mark: '.', endsSentence: true },
      { text: 'Meet at 10:30', mark: '!', endsSentence: true },
    ]);
    assert.deepEqual(splitClauses('Really?! "Yes." no mark'), [
      { text: 'Really', mark: '?', endsSentence: true },
      { text: '"Yes', mark: '.', endsSentence: true },
      { text: 'no mark', mark: '', endsSentence: true },
    ]);
    assert.deepEqual(splitClauses('   '), []);
  });

  it('joins clause phonemes into sentences and drops sentences without phonemes', () => {
    const clauses = splitClauses('A, b. ... C');
    assert.deepEqual(joinClauses(clauses, ['a', 'b', '', 'c']), ['a, b.', 'c']);
  });

  it('turns espeak language names into BCP-47 tags', () => {
    assert.equal(bcp47FromEspeak('en-us'), 'en-US');
    assert.equal(bcp47FromEspeak('en-gb-x-rp'), 'en-GB-x-rp');
    assert.equal(bcp47FromEspeak('es-419'), 'es-419');
    assert.equal(bcp47FromEspeak('sr-latn'), 'sr-Latn');
  });
});

describe('espeak engine without its library', () => {
  it('load() rejects with a clear error', async () => {
    const engine = createEspeakEngine({ library: '/nonexistent/libespeak-ng.so.1' });
    await assert.rejects(engine.load(), (err: unknown) => {
      assert.ok(err instanceof TtsError);
      assert.equal(err.code, 'TTS_ENGINE_UNAVAILABLE');
      assert.match(err.message, /cannot load \/nonexistent\/libespeak-ng\.so\.1/);
      return true;
    });
    assert.deepEqual(engine.voices(), []);
    await engine.close();
  });
});
