import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { kvBackends } from '@tts/common/testing';
import { TtsError } from '@tts/common';
import { ChallengeService, leadingZeroBits, solveChallenge, type IssuedChallenge } from './challenge.js';
import { sha256 } from './crypto.js';

const code = (c: string) => (e: unknown) => e instanceof TtsError && e.code === c;
const DIFFICULTY = 10;

describe('leadingZeroBits', () => {
  it('counts zero bits across bytes', () => {
    assert.equal(leadingZeroBits(Buffer.from([0x80])), 0);
    assert.equal(leadingZeroBits(Buffer.from([0x01])), 7);
    assert.equal(leadingZeroBits(Buffer.from([0x00, 0x00, 0x3f])), 18);
    assert.equal(leadingZeroBits(Buffer.alloc(4)), 32);
  });
});

for (const backend of kvBackends()) {
  describe(`challenge (${backend.name})`, () => {
    const service = async (t: Parameters<typeof backend.open>[0], clock = { now: Date.now() }, secret = Buffer.alloc(32, 1)) => {
      const kv = await backend.open(t);
      return { kv, clock, challenge: new ChallengeService({ secret, kv, difficultyBits: DIFFICULTY, now: () => clock.now }) };
    };
    const solve = (c: IssuedChallenge) => solveChallenge(c.challenge, c.difficultyBits);

    it('issues a signed challenge, accepts a valid solution and issues a pass bound to the client', async (t) => {
      const { challenge } = await service(t);
      const issued = challenge.issue();
      assert.equal(issued.difficultyBits, DIFFICULTY);
      assert.equal(issued.algorithm, 'sha256');
      assert.ok(issued.challenge.includes(issued.challengeId));
      const solution = solve(issued);
      assert.ok(leadingZeroBits(sha256(`${issued.challenge}:${solution}`)) >= DIFFICULTY);
      const pass = await challenge.redeem({ challenge: issued.challenge, solution }, 'agent-1');
      assert.equal(pass.maxAgeSec, 3600);
      const verified = challenge.verifyPass(pass.cookieValue, 'agent-1');
      assert.deepEqual(verified, { passId: pass.passId, expiresUnix: pass.expiresUnix });
      assert.throws(() => challenge.verifyPass(pass.cookieValue, 'agent-2'), code('AUTH_CHALLENGE_COOKIE_INVALID'));
    });

    it('refuses a replayed solution, also when replicas redeem concurrently', async (t) => {
      const { kv, challenge } = await service(t);
      const issued = challenge.issue();
      const solution = solve(issued);
      await challenge.redeem({ challenge: issued.challenge, solution }, 'a');
      await assert.rejects(challenge.redeem({ challenge: issued.challenge, solution }, 'a'), code('AUTH_CHALLENGE_REPLAYED'));

      const other = backend.shared ? await backend.open(t, kv.prefix) : kv;
      const replica = new ChallengeService({ secret: Buffer.alloc(32, 1), kv: other, difficultyBits: DIFFICULTY });
      const second = challenge.issue();
      const s2 = solve(second);
      const outcomes = await Promise.allSettled(
        Array.from({ length: 10 }, (_, i) => (i % 2 ? replica : challenge).redeem({ challenge: second.challenge, solution: s2 }, 'a')),
      );
      assert.equal(outcomes.filter((o) => o.status === 'fulfilled').length, 1);
      assert.ok(outcomes.every((o) => o.status === 'fulfilled' || code('AUTH_CHALLENGE_REPLAYED')(o.reason)));
    });

    it('refuses forged challenges: another secret, a lowered difficulty, a changed expiry, garbage', async (t) => {
      const { challenge, kv } = await service(t);
      const foreign = new ChallengeService({ secret: Buffer.alloc(32, 2), kv, difficultyBits: DIFFICULTY }).issue();
      await assert.rejects(challenge.redeem({ challenge: foreign.challenge, solution: solve(foreign) }, 'a'), code('AUTH_CHALLENGE_INVALID'));

      const issued = challenge.issue();
      const parts = issued.challenge.split('.');
      const easier = [parts[0], parts[1], '1', parts[3], parts[4]].join('.');
      await assert.rejects(challenge.redeem({ challenge: easier, solution: solveChallenge(easier, 1) }, 'a'), code('AUTH_CHALLENGE_INVALID'));
      const later = [parts[0], parts[1], parts[2], String(Number(parts[3]) + 3600), parts[4]].join('.');
      await assert.rejects(challenge.redeem({ challenge: later, solution: solveChallenge(later, DIFFICULTY) }, 'a'), code('AUTH_CHALLENGE_INVALID'));
      for (const bad of ['', 'c1.x.y', 'x'.repeat(10_000), 42, undefined, null]) {
        await assert.rejects(challenge.redeem({ challenge: bad, solution: '0' }, 'a'), code('AUTH_CHALLENGE_INVALID'));
      }
    });

    it('refuses a wrong or malformed solution without burning the challenge', async (t) => {
      const { challenge } = await service(t);
      const issued = challenge.issue();
      const good = solve(issued);
      let wrong = 0;
      while (leadingZeroBits(sha256(`${issued.challenge}:w${wrong}`)) >= DIFFICULTY) wrong++;
      await assert.rejects(challenge.redeem({ challenge: issued.challenge, solution: `w${wrong}` }, 'a'), code('AUTH_CHALLENGE_INVALID'));
      for (const bad of ['', 'has space', 'x'.repeat(65), 'ünï', 7]) {
        await assert.rejects(challenge.redeem({ challenge: issued.challenge, solution: bad }, 'a'), code('AUTH_CHALLENGE_INVALID'));
      }
      const pass = await challenge.redeem({ challenge: issued.challenge, solution: good }, 'a');
      assert.ok(pass.cookieValue.startsWith('p1.'));
    });

    it('refuses an expired challenge and an expired pass', async (t) => {
      const { challenge, clock } = await service(t);
      const issued = challenge.issue();
      const solution = solve(issued);
      clock.now += 121_000;
      await assert.rejects(challenge.redeem({ challenge: issued.challenge, solution }, 'a'), code('AUTH_CHALLENGE_EXPIRED'));

      const fresh = challenge.issue();
      const pass = await challenge.redeem({ challenge: fresh.challenge, solution: solve(fresh) }, 'a');
      clock.now += 3_599_000;
      assert.equal(challenge.verifyPass(pass.cookieValue, 'a').passId, pass.passId);
      clock.now += 2_000;
      assert.throws(() => challenge.verifyPass(pass.cookieValue, 'a'), code('AUTH_CHALLENGE_COOKIE_EXPIRED'));
    });

    it('refuses missing, malformed, tampered and foreign passes with stable codes', async (t) => {
      const { challenge, kv } = await service(t);
      const issued = challenge.issue();
      const pass = await challenge.redeem({ challenge: issued.challenge, solution: solve(issued) }, 'a');
      assert.throws(() => challenge.verifyPass(undefined, 'a'), code('AUTH_CHALLENGE_REQUIRED'));
      assert.throws(() => challenge.verifyPass('', 'a'), code('AUTH_CHALLENGE_REQUIRED'));
      for (const bad of ['garbage', 'p1.a.b.c', 'x'.repeat(5000), pass.cookieValue + 'x', pass.cookieValue.replace(/\.(\d+)\./, (_, e: string) => `.${Number(e) + 999_999}.`)]) {
        assert.throws(() => challenge.verifyPass(bad, 'a'), code('AUTH_CHALLENGE_COOKIE_INVALID'), bad.slice(0, 40));
      }
      const other = new ChallengeService({ secret: randomBytes(32), kv, difficultyBits: DIFFICULTY });
      assert.throws(() => other.verifyPass(pass.cookieValue, 'a'), code('AUTH_CHALLENGE_COOKIE_INVALID'));
    });
  });
}

describe('challenge configuration', () => {
  it('refuses a short secret and an out-of-range difficulty', async (t) => {
    const kv = await kvBackends()[0]!.open(t);
    assert.throws(() => new ChallengeService({ secret: Buffer.alloc(16), kv }), RangeError);
    assert.throws(() => new ChallengeService({ secret: Buffer.alloc(32), kv, difficultyBits: 0 }), RangeError);
    assert.throws(() => new ChallengeService({ secret: Buffer.alloc(32), kv, difficultyBits: 33 }), RangeError);
    assert.equal(new ChallengeService({ secret: Buffer.alloc(32), kv }).difficultyBits, 18);
  });
});
