import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CHALLENGE_COOKIE } from './challenge.js';
import { passCookie, readCookie } from './cookies.js';

describe('cookies', () => {
  it('reads one cookie among others, unquoting a quoted value', () => {
    assert.equal(readCookie('a=1; tts_challenge=p1.abc.123.xyz; b=2', CHALLENGE_COOKIE), 'p1.abc.123.xyz');
    assert.equal(readCookie('tts_challenge="quoted"', CHALLENGE_COOKIE), 'quoted');
    assert.equal(readCookie('other=1', CHALLENGE_COOKIE), undefined);
    assert.equal(readCookie(undefined, CHALLENGE_COOKIE), undefined);
    assert.equal(readCookie('xtts_challenge=1', CHALLENGE_COOKIE), undefined);
  });

  it('turns a duplicated cookie or an oversize header into an empty (refused) value', () => {
    assert.equal(readCookie('tts_challenge=a; tts_challenge=b', CHALLENGE_COOKIE), '');
    assert.equal(readCookie(`tts_challenge=a; pad=${'x'.repeat(9000)}`, CHALLENGE_COOKIE), '');
  });

  it('builds an HttpOnly SameSite=Lax cookie with the pass lifetime, Secure on request', () => {
    const pass = { passId: 'id', expiresUnix: 2, cookieValue: 'p1.v', maxAgeSec: 3600 };
    assert.equal(passCookie(pass, { secure: false }), 'tts_challenge=p1.v; Max-Age=3600; Path=/; HttpOnly; SameSite=Lax');
    assert.deepEqual(passCookie(pass, { secure: true, path: '/api' }).split('; ').sort(), ['HttpOnly', 'Max-Age=3600', 'Path=/api', 'SameSite=Lax', 'Secure', 'tts_challenge=p1.v']);
  });
});
