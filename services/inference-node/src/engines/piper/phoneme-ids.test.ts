import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { phonemesToIds, splitPhonemes } from './phoneme-ids.js';

const MAP = new Map<string, readonly number[]>([
  ['_', [0]], ['^', [1]], ['$', [2]], [' ', [3]], ['h', [20]], ['ə', [59]], ['l', [24]], ['o', [27]], ['ʊ', [100]],
  ['ˈ', [120]], ['c', [16]], ['\u0327', [140]], ['x', [7, 8]],
]);

describe('phonemesToIds', () => {
  it('writes ^ _ then each phoneme followed by _ then $, as Piper does', () => {
    const { ids, missing, mapped } = phonemesToIds(splitPhonemes('həlˈoʊ'), MAP);
    assert.deepEqual(ids, [1, 0, 20, 0, 59, 0, 24, 0, 120, 0, 27, 0, 100, 0, 2]);
    assert.equal(missing.size, 0);
    assert.equal(mapped, 6);
  });

  it('skips and counts phonemes missing from the map', () => {
    const { ids, missing, mapped } = phonemesToIds(splitPhonemes('h?h?!'), MAP);
    assert.deepEqual(ids, [1, 0, 20, 0, 20, 0, 2]);
    assert.deepEqual(Object.fromEntries(missing), { '?': 2, '!': 1 });
    assert.equal(mapped, 2);
  });

  it('keeps multi-id phonemes and spaces', () => {
    assert.deepEqual(phonemesToIds(['x', ' ', 'h'], MAP).ids, [1, 0, 7, 8, 0, 3, 0, 20, 0, 2]);
  });

  it('decomposes to NFD code points, so ç becomes c + combining cedilla', () => {
    assert.deepEqual(splitPhonemes('ç'), ['c', '\u0327']);
    assert.deepEqual(phonemesToIds(splitPhonemes('ç'), MAP).ids, [1, 0, 16, 0, 140, 0, 2]);
  });

  it('applies the voice phoneme_map before the id map', () => {
    const phonemeMap = new Map([['ɫ', ['l']]]);
    assert.deepEqual(splitPhonemes('hɫ', phonemeMap), ['h', 'l']);
  });

  it('throws when the map lacks a special symbol', () => {
    assert.throws(() => phonemesToIds(['h'], new Map([['h', [1]], ['_', [0]]])), /"\^"/);
  });
});
