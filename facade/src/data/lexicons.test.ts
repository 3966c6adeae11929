import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { databaseBackends } from '@tts/common/testing';
import { LexiconRepository } from './lexicons.js';
import { FACADE_MIGRATIONS } from './migrations/index.js';
import { StudioRepository } from './studio.js';

const tomato = { word: 'tomato', ipa: 'təˈmɑːtoʊ', caseSensitive: false };
const nginx = { word: 'Nginx', respelling: 'engine ex', caseSensitive: true };

for (const backend of databaseBackends(FACADE_MIGRATIONS)) {
  describe(`lexicon repository (${backend.name})`, () => {
    after(() => backend.close());

    it('replaces a lexicon atomically, keeping the creation time of words that stay', async (t) => {
      const repo = new LexiconRepository(await backend.open(t));
      const first = await repo.replace('owner:k1', [tomato, nginx]);
      assert.deepEqual(first.map((e) => e.word), ['Nginx', 'tomato']);
      assert.equal(first[1]!.ipa, 'təˈmɑːtoʊ');
      assert.equal(first[0]!.respelling, 'engine ex');
      assert.equal(first[0]!.caseSensitive, true);
      const second = await repo.replace('owner:k1', [{ ...tomato, word: 'Tomato', ipa: 'təˈmeɪtoʊ' }]);
      assert.deepEqual(second.map((e) => [e.word, e.ipa]), [['Tomato', 'təˈmeɪtoʊ']]);
      assert.equal(second[0]!.createdAt.getTime(), first[1]!.createdAt.getTime(), 'the word stayed: its creation time too');
      assert.deepEqual(await repo.list('owner:k2'), [], 'another lexicon is untouched');
      assert.deepEqual(await repo.replace('owner:k1', []), []);
    });

    it('puts entries one by one up to the limit, and deletes them whatever their case', async (t) => {
      const repo = new LexiconRepository(await backend.open(t));
      const a = await repo.put('owner:k1', tomato, 2);
      assert.ok(a !== 'full' && a.created);
      const again = await repo.put('owner:k1', { ...tomato, word: 'TOMATO' }, 2);
      assert.ok(again !== 'full' && !again.created && again.entry.word === 'TOMATO');
      assert.ok((await repo.put('owner:k1', nginx, 2)) !== 'full');
      assert.equal(await repo.put('owner:k1', { word: 'third', respelling: 'third', caseSensitive: false }, 2), 'full');
      assert.equal((await repo.put('owner:k1', { ...nginx, respelling: 'en jinx' }, 2)) === 'full', false, 'a full lexicon still changes its words');
      assert.equal(await repo.delete('owner:k1', 'tomato'), true);
      assert.equal(await repo.delete('owner:k1', 'tomato'), false);
      assert.deepEqual((await repo.list('owner:k1')).map((e) => e.word), ['Nginx']);
    });

    it('serves a speech request the caller\'s entries and its own preset\'s only; a preset\'s lexicon goes with its preset', async (t) => {
      const db = await backend.open(t);
      const repo = new LexiconRepository(db);
      const studio = new StudioRepository(db);
      for (const userId of ['usr_owner000001', 'usr_other000001']) {
        await studio.createUser({ userId, kind: 'guest', username: null, usernameKey: null, usernameSkeleton: null, email: null, emailKey: null, passwordHash: null }, { actor: 'test', userId, action: 'create', vipRequestId: null, fromState: null, toState: null, detail: null });
      }
      await studio.createPreset({ presetId: 'pst_preset000001', userId: 'usr_owner000001', name: 'p', voice: null, engine: null, speed: null, format: null, sampleText: null, notes: null, referenceId: null });
      await repo.replace('owner:studio:usr_owner000001', [tomato, nginx]);
      await repo.replace('preset:pst_preset000001', [{ ...tomato, ipa: 'təˈmeɪtoʊ' }]);
      const mine = await repo.listForSpeech('owner:studio:usr_owner000001', { lexiconId: 'preset:pst_preset000001', userId: 'usr_owner000001' });
      assert.deepEqual([mine.own.length, mine.preset.map((e) => e.ipa)], [2, ['təˈmeɪtoʊ']]);
      const theirs = await repo.listForSpeech('owner:studio:usr_other000001', { lexiconId: 'preset:pst_preset000001', userId: 'usr_other000001' });
      assert.deepEqual(theirs, { own: [], preset: [] }, 'another user\'s preset lends nothing');
      assert.equal(await studio.deletePreset('usr_owner000001', 'pst_preset000001'), true);
      assert.deepEqual(await repo.list('preset:pst_preset000001'), []);
    });
  });
}
