import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { findPiperVoices, parsePiperConfig, toBcp47 } from './voice-config.js';

const minimal = {
  audio: { sample_rate: 22050, quality: 'x_low' },
  espeak: { voice: 'de' },
  phoneme_id_map: { _: [0], '^': [1], $: [2], a: [14] },
};

describe('parsePiperConfig', () => {
  it('reads the fields the engine needs, with Piper defaults', () => {
    const config = parsePiperConfig(minimal, 'x.onnx.json', 'de_DE-x-x_low');
    assert.equal(config.sampleRate, 22050);
    assert.equal(config.espeakVoice, 'de');
    assert.equal(config.language, 'de');
    assert.equal(config.numSpeakers, 1);
    assert.equal(config.phonemeType, 'espeak');
    assert.deepEqual([config.noiseScale, config.lengthScale, config.noiseW], [0.667, 1, 0.8]);
    assert.deepEqual(config.phonemeIdMap.get('a'), [14]);
    assert.equal(config.dataset, 'de_DE-x-x_low');
  });

  it('reads speakers, inference scales and the language code', () => {
    const config = parsePiperConfig({
      ...minimal, num_speakers: 2, speaker_id_map: { anna: 0, ben: 1 }, language: { code: 'en_GB' },
      inference: { noise_scale: 0.5, length_scale: 1.2, noise_w: 0.6 },
    }, 'x', 'x');
    assert.equal(config.language, 'en-GB');
    assert.deepEqual([...config.speakerIdMap], [['anna', 0], ['ben', 1]]);
    assert.equal(config.lengthScale, 1.2);
  });

  it('names the file and field of invalid configs', () => {
    assert.throws(() => parsePiperConfig({ ...minimal, audio: {} }, 'v.onnx.json', 'v'), /v\.onnx\.json: audio\.sample_rate/);
    assert.throws(() => parsePiperConfig({ ...minimal, phoneme_id_map: { a: [1] } }, 'v', 'v'), /lacks "_"/);
    assert.throws(() => parsePiperConfig({ ...minimal, num_speakers: 1, speaker_id_map: { a: 3 } }, 'v', 'v'), /speaker_id_map/);
    assert.throws(() => parsePiperConfig({ ...minimal, phoneme_type: 'pinyin' }, 'v', 'v'), /phoneme_type/);
  });

  it('converts language codes to BCP-47', () => {
    assert.equal(toBcp47('en_US'), 'en-US');
    assert.equal(toBcp47('en-us'), 'en-US');
    assert.equal(toBcp47('cmn'), 'cmn');
  });
});

describe('findPiperVoices', () => {
  let root = '';
  before(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'piper-find-'));
    for (const [dir, files] of [
      ['a', ['v1.onnx', 'v1.onnx.json', 'orphan.onnx']],
      ['a/piper/v2', ['v2.onnx', 'v2.onnx.json']],
      ['b', ['v1.onnx', 'v1.onnx.json', 'v3.onnx', 'v3.onnx.json']],
    ] as const) {
      await mkdir(path.join(root, dir), { recursive: true });
      for (const f of files) await writeFile(path.join(root, dir, f), '{}');
    }
  });
  after(async () => rm(root, { recursive: true, force: true }));

  it('finds onnx+json pairs in the directories and two levels below; earlier directories win', async () => {
    const voices = await findPiperVoices([path.join(root, 'a'), path.join(root, 'missing'), path.join(root, 'b')]);
    assert.deepEqual(voices.map((v) => v.name).sort(), ['v1', 'v2', 'v3']);
    assert.equal(voices.find((v) => v.name === 'v1')!.onnxPath, path.join(root, 'a', 'v1.onnx'));
    assert.equal(voices.find((v) => v.name === 'v2')!.configPath, path.join(root, 'a', 'piper', 'v2', 'v2.onnx.json'));
  });
});
