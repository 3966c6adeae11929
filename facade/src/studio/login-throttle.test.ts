import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TtsError } from '@tts/common';
import { MemoryKv } from '@tts/common/kv';
import { accountDelaySec, LOGIN_THROTTLE, LoginThrottle } from './login-throttle.js';

/** The answer of one attempt: 'checked' or the Retry-After of its refusal. */
async function attempt(t: LoginThrottle, account: string, address: string): Promise<'checked' | number> {
  try {
    await t.attempt(account, address);
    return 'checked';
  } catch (err) {
    assert.ok(err instanceof TtsError && err.code === 'STUDIO_LOGIN_THROTTLED');
    return err.retryAfterSec ?? -1;
  }
}

describe('studio login throttle', () => {
  test('the account delay doubles from 1 s after the free failures, up to 60 s', () => {
    const free = LOGIN_THROTTLE.perAccountFree;
    assert.deepEqual([free + 1, free + 2, free + 3, free + 7, free + 40].map(accountDelaySec), [1, 2, 4, 60, 60]);
  });

  test('parallel attempts of one address on one account: only the first 5 are checked', async () => {
    const t = new LoginThrottle(new MemoryKv({ prefix: 'throttle-test' }));
    const answers = await Promise.all(Array.from({ length: 30 }, () => attempt(t, 'ada', '192.0.2.1')));
    assert.equal(answers.filter((a) => a === 'checked').length, 5);
    assert.ok(answers.filter((a) => a !== 'checked').every((a) => a === LOGIN_THROTTLE.windowSec));
  });

  test('a success takes back only its own count; a delay refusal counts nothing', async () => {
    let now = 1_000_000;
    const t = new LoginThrottle(new MemoryKv({ prefix: 'throttle-test', now: () => now }));
    for (let i = 0; i < 4; i++) assert.equal(await attempt(t, 'bob', '192.0.2.2'), 'checked');
    const ok = await t.attempt('bob', '192.0.2.2');
    await ok.succeeded();
    assert.equal(await attempt(t, 'bob', '192.0.2.2'), 'checked', 'the success freed its own place only');
    assert.equal(await attempt(t, 'bob', '192.0.2.2'), LOGIN_THROTTLE.windowSec, 'the 4 earlier failures and the 5th stay');
    // Other addresses: the account is slowed down, never locked.
    assert.equal(await attempt(t, 'bob', '198.51.100.1'), 'checked');
    for (let i = 0; i < 10; i++) assert.equal(await attempt(t, 'bob', '198.51.100.2'), 2, 'inside the delay, refused and not counted');
    now += 2_001;
    assert.equal(await attempt(t, 'bob', '198.51.100.2'), 'checked', 'after the delay an attempt from the waiting address is checked');
  });
});
