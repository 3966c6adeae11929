/**
 * The Piper engine with the real espeak-ng phonemizer on the tiny fixture voice: text -> IPA ->
 * Piper ids -> ONNX -> audio whose length is the id count times the hop.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { makePiperFixtures, tinyFixtureReference, TINY_FIXTURE, type PiperFixtures } from '@tts/fixtures';
import { createEspeakPhonemizer, type EspeakPhonemizer } from '../espeak/index.js';
import { phonemesToIds, splitPhonemes } from './phoneme-ids.js';
import { createPiperEngine, type PiperEngine } from './piper-engine.js';
import { readPiperConfig } from './voice-config.js';

let root = '';
let fixtures: PiperFixtures;
let phonemizer: EspeakPhonemizer;
let engine: PiperEngine;

before(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'piper-espeak-'));
  fixtures = await makePiperFixtures(root);
  phonemizer = createEspeakPhonemizer();
  engine = createPiperEngine({ voiceDirs: [root], phonemizer, normalizeAudio: false, sentenceSilenceSec: 0.25 });
  await engine.load();
});

after(async () => {
  await engine.close();
  await phonemizer.close();
  await rm(root, { recursive: true, force: true });
});

describe('piper engine with espeak-ng phonemes', () => {
  it('speaks English text through espeak IPA and Piper ids; every en-us phoneme is in the id map', async () => {
    const text = 'Hello world. How are you today?';
    const ipa = await phonemizer.phonemize(text, 'en-us');
    assert.equal(ipa.length, 2);
    assert.match(ipa[0]!, /həlˈoʊ/);
    const idMap = (await readPiperConfig(fixtures.tiny)).phonemeIdMap;
    const ids = ipa.map((s) => phonemesToIds(splitPhonemes(s), idMap));
    assert.ok(ids.every((u) => u.missing.size === 0), 'no espeak phoneme is missing from the Piper symbol table');

    const [out] = await engine.synthesize([{ text, voice: 'piper:en_US-fixture_tiny-low', speed: 1 }]);
    const gap = Math.round(0.25 * TINY_FIXTURE.sampleRate);
    const first = tinyFixtureReference(ids[0]!.ids, 1);
    const second = tinyFixtureReference(ids[1]!.ids, 1);
    const samples = out!.audio.samples;
    assert.equal(samples.length, first.length + gap + second.length);
    assert.deepEqual(samples.subarray(0, first.length), first);
    assert.deepEqual(samples.subarray(first.length + gap), second);
    assert.deepEqual(engine.stats().missingPhonemes, {});
  });

  it('slows down through the length scale', async () => {
    const voice = 'piper:en_US-fixture_multi-low#beta';
    const [normal, slow] = await engine.synthesize([
      { text: 'Testing the speed.', voice, speed: 1 },
      { text: 'Testing the speed.', voice, speed: 0.5 },
    ]);
    assert.equal(slow!.audio.samples.length, 2 * normal!.audio.samples.length);
  });
});
