import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TtsError } from '@tts/common';
import { checkNewPassword, PasswordHasher } from './passwords.js';

const codeOf = async (check: Promise<unknown>): Promise<string> => {
  try {
    await check;
  } catch (err) {
    if (err instanceof TtsError) return err.code;
    throw err;
  }
  return 'accepted';
};

describe('studio passwords', () => {
  test('length over composition: long passphrases pass, short, breached, repetitive and self-named ones do not', async () => {
    const cases: [string, string][] = [
      ['correct horse battery staple', 'accepted'],
      ['ünïcödé pässphrase 🙂', 'accepted'],
      ['Sh0rt!pw', 'STUDIO_PASSWORD_TOO_SHORT'],
      ['x'.repeat(129), 'STUDIO_PASSWORD_TOO_LONG'],
      ['qwerty123456', 'STUDIO_PASSWORD_WEAK'],
      ['Password1234!', 'STUDIO_PASSWORD_WEAK'],
      ['zzzzzzzzzzzzzz', 'STUDIO_PASSWORD_WEAK'],
      ['abcabcabcabcabc', 'STUDIO_PASSWORD_WEAK'],
      ['123456789012', 'STUDIO_PASSWORD_WEAK'],
      ['margaret-in-the-garden', 'STUDIO_PASSWORD_WEAK'],
      // Keyboard walks and repeated patterns that no list holds: zxcvbn scores them below 3.
      ['qwertyuiopas', 'STUDIO_PASSWORD_GUESSABLE'],
      ['ab12ab12ab12ab', 'STUDIO_PASSWORD_GUESSABLE'],
      ['zxcvbnmasdfgh', 'STUDIO_PASSWORD_GUESSABLE'],
    ];
    for (const [pw, want] of cases) assert.equal(await codeOf(checkNewPassword(pw, { username: 'Margaret' })), want, pw);
  });

  test('a guessable password is refused with zxcvbn\'s score and feedback in the message', async () => {
    try {
      await checkNewPassword('qwertyuiopas', {});
      assert.fail('accepted');
    } catch (err) {
      assert.ok(err instanceof TtsError);
      assert.equal(err.code, 'STUDIO_PASSWORD_GUESSABLE');
      assert.match(err.message, /strength is [0-2] of 4 .*commonly used password/);
    }
  });

  test('NFKC normalization: a fullwidth password counts its normalized characters and verifies in either form', async () => {
    const hasher = new PasswordHasher();
    const fullwidth = 'ｃｏｒｒｅｃｔ ｈｏｒｓｅ ｂａｔｔｅｒｙ';
    const stored = await hasher.hash(await checkNewPassword(fullwidth, {}));
    assert.match(stored, /^scrypt\$15\$8\$1\$/);
    assert.equal(await hasher.verify('correct horse battery', stored), true);
    assert.equal(await hasher.verify('correct horse batterz', stored), false);
    assert.equal(await hasher.verify('anything', 'not-a-hash'), false);
  });

  test('an unknown account costs one hash, like a wrong password', async () => {
    const hasher = new PasswordHasher();
    const stored = await hasher.hash('correct horse battery staple');
    const runs = hasher.hashRuns;
    assert.equal(await hasher.verifyUnknown('guess one two three'), false);
    assert.equal(await hasher.verify('guess one two three', stored), false);
    assert.equal(hasher.hashRuns - runs, 2);
  });
});
