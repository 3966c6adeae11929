/**
 * The studio portal over REST against a real platform, on PostgreSQL + Redis and on the embedded
 * default (PGlite, in-process limiter): sessions (guest, register, login, logout, password change,
 * account deletion), login throttling, presets and shares with their owner scoping, VIP by slip
 * through a local fake of the SlipOK API (every row of the slip state table), manual requests,
 * administration and session revocation.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { parseTrustedProxies } from '@tts/facade';
import { startFakeSlipOk, testSlipPng, type FakeSlipOk } from '@tts/facade/testing';
import { postJson, startPlatform, type TestPlatform } from './support/platform.js';

const PASSWORD = 'purple elephants dance at noon';

/** A slip image: a whole PNG of random pixels, another one each call. */
const slipImage = (): Buffer => testSlipPng();

interface Session { token: string; user: { user_id: string; kind: string; role: string; vip: boolean } }

function studioSuite(label: string, embedded: boolean): void {
  describe(`studio API (${label})`, () => {
    let p: TestPlatform;
    let fake: FakeSlipOk;
    let n = 0;
    before(async () => {
      fake = await startFakeSlipOk({ apiKey: 'slipok-test-key', branchId: '4242' });
      p = await startPlatform({
        node: { engines: ['flite'], defaultVoice: 'flite:slt' },
        facade: {
          defaultVoice: 'flite:slt',
          slipProviderUrl: fake.url,
          slipProviderKey: 'slipok-test-key',
          slipProviderBranch: '4242',
          slipProviderTimeoutMs: 600,
          // Login throttling is per client address: the tests name theirs in X-Forwarded-For.
          trustedProxies: parseTrustedProxies('127.0.0.1,::1'),
          ...(embedded ? { databaseUrl: undefined, redisUrl: undefined, ephemeral: true } : {}),
        },
      });
    });
    after(async () => {
      await p?.stop();
      await fake?.close();
    });

    const url = (path: string): string => `${p.url}${path}`;
    const st = (token: string): Record<string, string> => ({ 'x-studio-token': token });
    const admin = (): Record<string, string> => ({ 'x-admin-key': p.adminKey });
    const json = async <T>(res: Response): Promise<T> => (await res.json()) as T;
    const code = async (res: Response): Promise<string> => ((await res.json()) as { code: string }).code;
    const call = (method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Response> =>
      fetch(url(path), { method, headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
    const register = async (name?: string, headers: Record<string, string> = {}): Promise<Session> => {
      const res = await postJson(url('/api/studio/auth/register'), { username: name ?? `user${++n}${randomBytes(3).toString('hex')}`, password: PASSWORD }, headers);
      assert.equal(res.status, 201, await res.clone().text());
      return json<Session>(res);
    };
    const guest = async (): Promise<Session> => {
      const res = await fetch(url('/api/studio/auth/guest'), { method: 'POST' });
      assert.equal(res.status, 201);
      return json<Session>(res);
    };
    const preset = async (token: string, body: Record<string, unknown> = { name: 'Narrator', voice: 'flite:slt', speed: 1.1, format: 'mp3', sample_text: 'Once upon a time.', notes: 'private note' }): Promise<{ preset_id: string }> => {
      const res = await call('POST', '/api/studio/presets', st(token), body);
      assert.equal(res.status, 201, await res.clone().text());
      return json(res);
    };
    const audit = async (userId: string): Promise<string[]> => {
      const rows = await p.facade.deps.access.database.query<{ action: string }>('SELECT action FROM studio_audit WHERE user_id = $1::text ORDER BY id', [userId]);
      return rows.map((r) => r.action);
    };

    let nextAddress = 0;
    /** A client address no other test uses (X-Forwarded-For through the trusted loopback proxy). */
    const freshAddress = (): Record<string, string> => ({ 'x-forwarded-for': `198.51.100.${++nextAddress}` });
    const loginFrom = (from: Record<string, string>, login: string, password: string): Promise<Response> => postJson(url('/api/studio/auth/login'), { login, password }, from);

    test('register -> login -> preset -> share -> fork by another user -> revoke', async () => {
      const name = `Ada${randomBytes(3).toString('hex')}`;
      const ada = await register(name);
      assert.equal(ada.user.kind, 'registered');
      assert.match(ada.token, /^sst_[A-Za-z0-9]{43}$/);
      const login = await postJson(url('/api/studio/auth/login'), { login: name.toLowerCase(), password: PASSWORD });
      assert.equal(login.status, 200);
      const session = await json<Session & { expires_at: string; absolute_expires_at: string }>(login);
      assert.notEqual(session.token, ada.token, 'a login issues a new token');
      assert.ok(Date.parse(session.absolute_expires_at) - Date.now() > 29 * 86_400_000);
      const me = await json<{ user: { user_id: string }; limits: { presets: number }; rate_limits: { studio: { limit: number }; studio_edit: { limit: number } } }>(await call('GET', '/api/studio/auth/me', st(session.token)));
      assert.equal(me.user.user_id, ada.user.user_id);
      assert.deepEqual([me.limits.presets, me.rate_limits.studio.limit, me.rate_limits.studio_edit.limit], [50, 8, 120]);

      const created = await preset(session.token);
      const listed = await call('GET', '/api/studio/presets', st(session.token));
      assert.equal(listed.headers.get('ratelimit-limit'), '120', 'presets are read on the studio_edit budget');
      assert.deepEqual((await json<{ data: { preset_id: string }[] }>(listed)).data.map((x) => x.preset_id), [created.preset_id]);
      const shared = await call('POST', `/api/studio/presets/${created.preset_id}/share`, st(session.token), { expires_in_sec: 3600 });
      assert.equal(shared.status, 201);
      const share = await json<{ share_id: string; share_token: string; share_path: string; status: string }>(shared);
      assert.match(share.share_token, /^shs_[A-Za-z0-9]{43}$/);
      assert.equal(share.status, 'active');
      const rows = await p.facade.deps.access.database.query<Record<string, unknown>>('SELECT * FROM studio_shares WHERE share_id = $1::text', [share.share_id]);
      assert.ok(!JSON.stringify(rows).includes(share.share_token), 'only the digest of a share token is stored');

      const view = await fetch(url(share.share_path));
      assert.equal(view.status, 200);
      const text = await view.text();
      for (const secret of [ada.user.user_id, name, 'private note', created.preset_id]) assert.ok(!text.includes(secret), `the public share shows nothing private (${secret})`);
      assert.equal((JSON.parse(text) as { preset: { voice: string } }).preset.voice, 'flite:slt');

      const bob = await register();
      const forked = await call('POST', `/api/studio/share/${share.share_token}/fork`, st(bob.token), { name: 'My narrator' });
      assert.equal(forked.status, 201);
      const copy = await json<{ preset_id: string; name: string; notes: string | null; forked_from: { share_id: string } }>(forked);
      assert.deepEqual([copy.name, copy.notes, copy.forked_from.share_id], ['My narrator', null, share.share_id]);
      const bobs = await json<{ data: { preset_id: string }[] }>(await call('GET', '/api/studio/presets', st(bob.token)));
      assert.deepEqual(bobs.data.map((x) => x.preset_id), [copy.preset_id]);
      const shares = await json<{ data: { share_id: string; fork_count: number }[] }>(await call('GET', '/api/studio/shares', st(session.token)));
      assert.equal(shares.data[0]?.fork_count, 1);

      const revoked = await call('DELETE', `/api/studio/shares/${share.share_id}`, st(session.token));
      assert.equal(revoked.status, 200);
      assert.equal((await json<{ status: string }>(revoked)).status, 'revoked');
      const gone = await fetch(url(share.share_path));
      assert.equal(gone.status, 410);
      assert.equal(await code(gone), 'STUDIO_SHARE_REVOKED');
      const late = await call('POST', `/api/studio/share/${share.share_token}/fork`, st(bob.token), {});
      assert.equal(late.status, 410);
      const unknown = await fetch(url(`/api/studio/share/shs_${'x'.repeat(43)}`));
      assert.equal(unknown.status, 404);
      assert.equal(await code(unknown), 'STUDIO_SHARE_NOT_FOUND');

      // An expired share answers 410 with its own code.
      const short = await json<{ share_id: string; share_token: string }>(await call('POST', `/api/studio/presets/${created.preset_id}/share`, st(session.token), {}));
      await p.facade.deps.access.database.query(`UPDATE studio_shares SET expires_at = now() - interval '1 second' WHERE share_id = $1::text`, [short.share_id]);
      const expired = await fetch(url(`/api/studio/share/${short.share_token}`));
      assert.equal(expired.status, 410);
      assert.equal(await code(expired), 'STUDIO_SHARE_EXPIRED');

      const out = await call('POST', '/api/studio/auth/logout', st(session.token));
      assert.equal(out.status, 200);
      const after = await call('GET', '/api/studio/auth/me', st(session.token));
      assert.equal(after.status, 401);
      assert.equal(await code(after), 'STUDIO_SESSION_INVALID');
      assert.equal((await call('GET', '/api/studio/auth/me', st(ada.token))).status, 200, 'other sessions live on');
    });

    test('a guest keeps its presets when it registers; its guest token ends', async () => {
      const g = await guest();
      assert.equal(g.user.kind, 'guest');
      const kept = await preset(g.token, { name: 'Guest preset' });
      const reg = await register(undefined, st(g.token));
      assert.equal(reg.user.user_id, g.user.user_id);
      assert.equal(reg.user.kind, 'registered');
      const list = await json<{ data: { preset_id: string }[] }>(await call('GET', '/api/studio/presets', st(reg.token)));
      assert.deepEqual(list.data.map((x) => x.preset_id), [kept.preset_id]);
      assert.equal((await call('GET', '/api/studio/auth/me', st(g.token))).status, 401, 'the guest session ends with the upgrade');
      const again = await postJson(url('/api/studio/auth/register'), { username: `other${randomBytes(3).toString('hex')}`, password: PASSWORD }, st(reg.token));
      assert.equal(again.status, 409);
      assert.equal(await code(again), 'STUDIO_ALREADY_REGISTERED');
      assert.deepEqual((await audit(g.user.user_id)).slice(0, 2), ['account.guest_created', 'account.registered']);
    });

    test('passwords: length over composition, breached and repetitive ones refused; names unique after normalization', async () => {
      // Registration is on the public profile (30 a minute per address): this test sends more.
      const refusedFrom = freshAddress();
      const createdFrom = freshAddress();
      const reg = (body: Record<string, unknown>): Promise<Response> => postJson(url('/api/studio/auth/register'), body, refusedFrom);
      const cases: [Record<string, unknown>, number, string][] = [
        [{ username: 'shorty1', password: 'short pw' }, 422, 'STUDIO_PASSWORD_TOO_SHORT'],
        [{ username: 'longy01', password: 'x'.repeat(10_240) }, 422, 'STUDIO_PASSWORD_TOO_LONG'],
        [{ username: 'common1', password: 'password1234' }, 422, 'STUDIO_PASSWORD_WEAK'],
        [{ username: 'common2', password: 'qwertyuiop123' }, 422, 'STUDIO_PASSWORD_WEAK'],
        [{ username: 'repeat1', password: 'aaaaaaaaaaaaaaaa' }, 422, 'STUDIO_PASSWORD_WEAK'],
        [{ username: 'seqnce1', password: 'abcdefghijklmnop' }, 422, 'STUDIO_PASSWORD_WEAK'],
        [{ username: 'charlotte', password: 'charlotte-the-great' }, 422, 'STUDIO_PASSWORD_WEAK'],
        [{ password: PASSWORD }, 422, 'STUDIO_LOGIN_NAME_MISSING'],
        [{ username: 'a b', password: PASSWORD }, 422, 'STUDIO_USERNAME_INVALID'],
        [{ email: 'not-an-email', password: PASSWORD }, 422, 'STUDIO_EMAIL_INVALID'],
        [{ username: 'x'.repeat(10), password: 42 }, 422, 'VALIDATION_FAILED'],
        [{ username: 'walker1', password: 'qwertyuiopas' }, 422, 'STUDIO_PASSWORD_GUESSABLE'],
        [{ username: 'walker2', password: 'ab12ab12ab12ab' }, 422, 'STUDIO_PASSWORD_GUESSABLE'],
        [{ username: 'mixеd', password: PASSWORD }, 422, 'STUDIO_USERNAME_MIXED_SCRIPT'],
      ];
      for (const [body, status, want] of cases) {
        const res = await reg(body);
        assert.equal(res.status, status, JSON.stringify(body).slice(0, 60));
        assert.equal(await code(res), want, JSON.stringify(body).slice(0, 60));
      }
      const before = await p.facade.deps.access.database.query<{ n: string }>('SELECT count(*)::text AS n FROM studio_users');
      const base = `zoe${randomBytes(3).toString('hex')}`;
      await register(base, createdFrom);
      const email = `${base}@example.org`;
      assert.equal((await reg({ username: `${base}x`, email, password: PASSWORD })).status, 201);
      for (const dup of [base.toUpperCase(), base.normalize('NFKC').replace('z', 'ｚ')]) {
        const res = await reg({ username: dup, password: PASSWORD });
        assert.equal(res.status, 409, dup);
        assert.equal(await code(res), 'STUDIO_USERNAME_TAKEN');
      }
      // Look-alikes of an existing name (UTS #39 skeleton): a dotted capital İ, a dotless ı, 1 for l, accents; a Cyrillic а among Latin letters is mixed script.
      const alike = `al${randomBytes(3).toString('hex').replace(/[0-9]/g, 'x')}`;
      await register(`${alike}ice`, createdFrom);
      for (const dup of [`${alike.toUpperCase()}İCE`, `${alike}ıce`, `${alike.replace('l', '1')}ice`, `${alike}ícé`]) {
        const res = await reg({ username: dup, password: PASSWORD });
        assert.equal(res.status, 409, dup);
        assert.equal(await code(res), 'STUDIO_USERNAME_CONFUSABLE', dup);
      }
      const mixed = await reg({ username: `${alike.replace('a', 'а')}ice`, password: PASSWORD });
      assert.equal(mixed.status, 422);
      assert.equal(await code(mixed), 'STUDIO_USERNAME_MIXED_SCRIPT');
      // A whole name in Cyrillic letters that read as Latin ones, then its Latin reading.
      const latin = `ape${Array.from(randomBytes(6), (b) => 'aeopcxy'[b % 7]).join('')}`;
      const cyrillic = [...latin].map((c) => 'аеорсху'['aeopcxy'.indexOf(c)]).join('');
      await register(cyrillic, createdFrom);
      const latinCopy = await reg({ username: latin, password: PASSWORD });
      assert.equal(latinCopy.status, 409, 'a Latin name that reads as an all-Cyrillic one');
      assert.equal(await code(latinCopy), 'STUDIO_USERNAME_CONFUSABLE');
      // A name stored before skeletons were (migration 24) gets its skeleton at start, and counts.
      const legacy = `old${randomBytes(3).toString('hex').replace(/[0-9]/g, 'x')}lion`;
      const legacyId = `usr_legacy${randomBytes(6).toString('hex')}`;
      await p.facade.deps.access.database.query("INSERT INTO studio_users (user_id, kind, username, username_key) VALUES ($1::text, 'registered', $2::text, $2::text)", [legacyId, legacy]);
      await p.facade.deps.access.studio.backfillUsernameSkeletons();
      const filled = await p.facade.deps.access.database.query<{ username_skeleton: string | null }>('SELECT username_skeleton FROM studio_users WHERE user_id = $1::text', [legacyId]);
      assert.equal(filled[0]?.username_skeleton, legacy);
      const legacyAlike = await reg({ username: legacy.replace('lion', 'lıon'), password: PASSWORD });
      assert.equal(legacyAlike.status, 409);
      assert.equal(await code(legacyAlike), 'STUDIO_USERNAME_CONFUSABLE');
      const dupMail = await reg({ email: email.toUpperCase(), password: PASSWORD });
      assert.equal(dupMail.status, 409);
      assert.equal(await code(dupMail), 'STUDIO_EMAIL_TAKEN');
      const afterRows = await p.facade.deps.access.database.query<{ n: string }>('SELECT count(*)::text AS n FROM studio_users');
      assert.equal(Number(afterRows[0]!.n) - Number(before[0]!.n), 5, 'refused registrations store nothing (4 registered, 1 inserted as from before)');
      const byEmail = await postJson(url('/api/studio/auth/login'), { login: email.toUpperCase(), password: PASSWORD });
      assert.equal(byEmail.status, 200, 'login by email, case-insensitively');
      const stored = await p.facade.deps.access.database.query<{ password_hash: string }>('SELECT password_hash FROM studio_users WHERE username = $1::text', [base]);
      assert.match(stored[0]!.password_hash, /^scrypt\$15\$8\$1\$/);
      assert.ok(!stored[0]!.password_hash.includes(PASSWORD));
    });

    test('logins are throttled per account; an unknown account costs the same hash', async () => {
      const name = `tom${randomBytes(3).toString('hex')}`;
      await register(name);
      const hasher = p.facade.deps.access.studio.hasher;
      const runs = hasher.hashRuns;
      const unknown = await postJson(url('/api/studio/auth/login'), { login: `ghost${randomBytes(4).toString('hex')}`, password: PASSWORD });
      assert.equal(unknown.status, 401);
      assert.equal(await code(unknown), 'STUDIO_LOGIN_FAILED');
      assert.equal(hasher.hashRuns - runs, 1, 'an unknown account still runs one password hash');
      const wrongRuns = hasher.hashRuns;
      for (let i = 0; i < 5; i++) {
        const res = await postJson(url('/api/studio/auth/login'), { login: name, password: 'wrong password number ' + i });
        assert.equal(res.status, 401);
      }
      assert.equal(hasher.hashRuns - wrongRuns, 5, 'a known account with a wrong password runs one hash each');
      const locked = await postJson(url('/api/studio/auth/login'), { login: name, password: PASSWORD });
      assert.equal(locked.status, 429);
      assert.equal(await code(locked), 'STUDIO_LOGIN_THROTTLED');
      assert.ok(Number(locked.headers.get('retry-after')) > 0);
    });

    test('parallel logins are counted before their check: at most 5 failures per account and address are checked', async () => {
      const name = `race${randomBytes(3).toString('hex')}`;
      await register(name);
      const hasher = p.facade.deps.access.studio.hasher;
      const runs = hasher.hashRuns;
      const from = freshAddress();
      // 29 in the burst and one after it: the public profile allows 30 a minute per address.
      const answers = await Promise.all(Array.from({ length: 29 }, (_, i) => loginFrom(from, name, i === 17 ? PASSWORD : `wrong password number ${i}`)));
      const statuses = answers.map((r) => r.status);
      const checked = hasher.hashRuns - runs;
      assert.ok(checked <= 6, `${checked} passwords checked of 29 parallel attempts (${statuses.join(',')})`);
      assert.ok(statuses.filter((s) => s === 401).length <= 5, statuses.join(','));
      for (const r of answers.filter((x) => x.status === 429)) assert.equal(await code(r), 'STUDIO_LOGIN_THROTTLED');
      // A success in the burst took back only its own count: the failures stay.
      const after = await loginFrom(from, name, PASSWORD);
      assert.equal(after.status, 429);
      assert.equal(await code(after), 'STUDIO_LOGIN_THROTTLED');
    });

    test('failures slow an account down but never lock out its right password from another address', async () => {
      const name = `dos${randomBytes(3).toString('hex')}`;
      await register(name);
      const attacker = freshAddress();
      for (let i = 0; i < 5; i++) assert.equal((await loginFrom(attacker, name, `wrong password ${i}`)).status, 401);
      assert.equal((await loginFrom(attacker, name, PASSWORD)).status, 429, 'the failing address is refused on this account');
      assert.equal((await loginFrom(freshAddress(), name, PASSWORD)).status, 200, 'the right password from another address passes');

      // Guesses from many addresses: one per delay, the delay doubling; the owner passes after it.
      const guesses: Response[] = [];
      for (let i = 0; i < 4; i++) guesses.push(await loginFrom(freshAddress(), name, `distributed guess ${i}`));
      const slowed = guesses.filter((r) => r.status === 429);
      assert.ok(slowed.length >= 2, guesses.map((r) => r.status).join(','));
      for (const r of slowed) {
        assert.equal(await code(r), 'STUDIO_LOGIN_THROTTLED');
        const wait = Number(r.headers.get('retry-after'));
        assert.ok(wait >= 1 && wait <= 60, `Retry-After ${wait}`);
      }
      const owner = freshAddress();
      let answer = await loginFrom(owner, name, PASSWORD);
      for (let tries = 0; answer.status === 429 && tries < 3; tries++) {
        await new Promise((resolve) => setTimeout(resolve, Number(answer.headers.get('retry-after')) * 1000 + 100));
        answer = await loginFrom(owner, name, PASSWORD);
      }
      assert.equal(answer.status, 200, 'the right password passes after the Retry-After delay');
    });

    test('nobody reads or changes another user\'s presets or shares (owner / other / guest / admin)', async () => {
      const owner = await register();
      const other = await register();
      const g = await guest();
      const studioAdmin = await register();
      assert.equal((await call('PATCH', `/api/studio/admin/users/${studioAdmin.user.user_id}`, admin(), { role: 'admin' })).status, 200);
      const mine = await preset(owner.token);
      const share = await json<{ share_id: string }>(await call('POST', `/api/studio/presets/${mine.preset_id}/share`, st(owner.token), {}));
      const snapshot = async (): Promise<string> => JSON.stringify([
        await p.facade.deps.access.database.query('SELECT * FROM studio_presets WHERE preset_id = $1::text', [mine.preset_id]),
        await p.facade.deps.access.database.query('SELECT * FROM studio_shares WHERE share_id = $1::text', [share.share_id]),
      ]);
      const before = await snapshot();
      const ops: [string, string, unknown][] = [
        ['PATCH', `/api/studio/presets/${mine.preset_id}`, { name: 'stolen' }],
        ['POST', `/api/studio/presets/${mine.preset_id}/share`, {}],
        ['DELETE', `/api/studio/shares/${share.share_id}`, undefined],
        ['DELETE', `/api/studio/presets/${mine.preset_id}`, undefined],
      ];
      const intruders: [string, Record<string, string>, number, string][] = [
        ['other user', st(other.token), 404, ''],
        ['guest', st(g.token), 404, ''],
        ['studio admin', st(studioAdmin.token), 404, ''],
        ['administrator key', admin(), 401, 'STUDIO_SESSION_MISSING'],
        ['API key', { 'x-api-key': p.apiKey }, 401, 'STUDIO_SESSION_MISSING'],
      ];
      for (const [who, headers, status, want] of intruders) {
        for (const [method, path, body] of ops) {
          const res = await call(method, path, headers, body);
          assert.equal(res.status, status, `${who}: ${method} ${path}`);
          const c = await code(res);
          assert.equal(c, want || (path.includes('/shares/') ? 'STUDIO_SHARE_NOT_FOUND' : 'STUDIO_PRESET_NOT_FOUND'), `${who}: ${method} ${path}`);
        }
        const list = await call('GET', '/api/studio/presets', headers);
        if (status === 404) assert.ok(!(await list.text()).includes(mine.preset_id), `${who} does not list it`);
        const shares = await call('GET', '/api/studio/shares', headers);
        if (status === 404) assert.ok(!(await shares.text()).includes(share.share_id), `${who} does not list the share`);
      }
      assert.equal(await snapshot(), before, 'nothing stored changed');
      // The owner can do each of them.
      assert.equal((await call('PATCH', `/api/studio/presets/${mine.preset_id}`, st(owner.token), { name: 'Renamed', notes: null })).status, 200);
      const bad = await call('PATCH', `/api/studio/presets/${mine.preset_id}`, st(owner.token), { voice: 'flite:nosuchvoice' });
      assert.equal(bad.status, 422);
      assert.equal(await code(bad), 'TTS_VOICE_NOT_FOUND');
      const badRef = await call('PATCH', `/api/studio/presets/${mine.preset_id}`, st(owner.token), { reference_id: 'ref_doesnotexist00' });
      assert.equal(badRef.status, 404);
      assert.equal(await code(badRef), 'REFERENCE_NOT_FOUND');
      const empty = await call('PATCH', `/api/studio/presets/${mine.preset_id}`, st(owner.token), {});
      assert.equal(empty.status, 422);
      assert.equal((await call('DELETE', `/api/studio/shares/${share.share_id}`, st(owner.token))).status, 200);
      assert.equal((await call('DELETE', `/api/studio/presets/${mine.preset_id}`, st(owner.token))).status, 200);
      assert.equal((await call('DELETE', `/api/studio/presets/${mine.preset_id}`, st(owner.token))).status, 404);
      const malformed = await call('DELETE', '/api/studio/presets/not-an-id', st(owner.token));
      assert.equal(malformed.status, 422);
    });

    test('per-tier preset limits: a guest may hold 10', async () => {
      const g = await guest();
      for (let i = 0; i < 10; i++) await preset(g.token, { name: `p${i}` });
      const over = await call('POST', '/api/studio/presets', st(g.token), { name: 'one too many' });
      assert.equal(over.status, 409);
      assert.equal(await code(over), 'STUDIO_PRESET_LIMIT_REACHED');
    });

    test('VIP by slip follows the state table; a slip is accepted once', async () => {
      const buyer = await register();
      const slip = async (token: string, image: Buffer, plan = 'vip_month'): Promise<Response> => {
        const form = new FormData();
        form.append('plan_id', plan);
        form.append('slip', new Blob([image], { type: 'image/png' }), 'slip.png');
        return fetch(url('/api/studio/vip/slip'), { method: 'POST', headers: st(token), body: form });
      };
      const info = await json<{ plans: { plan_id: string; price: number; days: number }[]; payment: { automatic: boolean }; status: { vip: boolean } }>(await call('GET', '/api/studio/vip/info', st(buyer.token)));
      const month = info.plans.find((x) => x.plan_id === 'vip_month')!;
      assert.deepEqual([info.payment.automatic, info.status.vip], [true, false]);

      // Genuine and the amount matches: approved at once, VIP granted.
      const genuine = slipImage();
      fake.register(genuine, { transRef: `TR${randomBytes(6).toString('hex')}`, amount: month.price });
      const ok = await slip(buyer.token, genuine);
      assert.equal(ok.status, 201, await ok.clone().text());
      const approved = await json<{ request_id: string; status: string; reason: string; vip_until: string }>(ok);
      assert.deepEqual([approved.status, approved.reason], ['approved', 'slip_verified']);
      assert.ok(Date.parse(approved.vip_until) - Date.now() > (month.days - 1) * 86_400_000);
      assert.deepEqual([fake.lastRequest?.fields['amount'], fake.lastRequest?.fields['log'], fake.lastRequest?.authorization, fake.lastRequest?.fileField, fake.lastRequest?.path], [String(month.price), 'true', 'slipok-test-key', 'files', '/api/line/apikey/4242'], 'SlipOK protocol: the plan price goes to the provider');
      const me = await json<{ user: { vip: boolean }; limits: { presets: number } }>(await call('GET', '/api/studio/auth/me', st(buyer.token)));
      assert.deepEqual([me.user.vip, me.limits.presets], [true, 500]);

      // The same image again, and another image of the same transfer: never accepted twice.
      const twice = await slip(buyer.token, genuine);
      assert.equal(twice.status, 409);
      assert.equal(await code(twice), 'STUDIO_SLIP_DUPLICATE');
      const rescreen = slipImage();
      const sameTransfer = (await p.facade.deps.access.database.query<{ trans_ref: string }>('SELECT trans_ref FROM studio_vip_requests WHERE request_id = $1::text', [approved.request_id]))[0]!.trans_ref;
      fake.register(rescreen, { transRef: sameTransfer, amount: month.price });
      const callsBefore = fake.calls;
      const again = await slip(buyer.token, rescreen);
      assert.equal(again.status, 409);
      assert.equal(await code(again), 'STUDIO_SLIP_DUPLICATE');
      assert.equal(fake.calls - callsBefore, 1);

      // Fraud: rejected, no VIP.
      const cheat = await register();
      const forged = slipImage();
      fake.register(forged, { transRef: `TR${randomBytes(6).toString('hex')}`, amount: month.price, outcome: 'fraud_not_slip' });
      const fraud = await json<{ status: string; reason: string }>(await slip(cheat.token, forged));
      assert.deepEqual([fraud.status, fraud.reason], ['rejected', 'slip_fraud']);
      const noSuchTransfer = slipImage();
      fake.register(noSuchTransfer, { transRef: `TR${randomBytes(6).toString('hex')}`, amount: month.price, outcome: 'not_found' });
      assert.equal((await json<{ status: string }>(await slip(cheat.token, noSuchTransfer))).status, 'rejected');
      assert.equal((await json<{ user: { vip: boolean } }>(await call('GET', '/api/studio/auth/me', st(cheat.token)))).user.vip, false);

      // Anything else waits for an administrator: mismatch, unreadable, provider error, timeout.
      const waiting: [string, Buffer, string][] = [];
      const mismatch = slipImage();
      fake.register(mismatch, { transRef: `TR${randomBytes(6).toString('hex')}`, amount: month.price - 1 });
      waiting.push(['amount mismatch', mismatch, 'amount_mismatch']);
      waiting.push(['no QR code', slipImage(), 'slip_unreadable']);
      const broken = slipImage();
      fake.register(broken, { transRef: `TR${randomBytes(6).toString('hex')}`, amount: month.price, outcome: 'server_error' });
      waiting.push(['provider error', broken, 'provider_error']);
      // One request waits per user: each case is another user's.
      for (const [what, image, reason] of waiting) {
        const res = await slip((await register()).token, image);
        assert.equal(res.status, 201, what);
        const body = await json<{ status: string; reason: string }>(res);
        assert.deepEqual([body.status, body.reason], ['pending_review', reason], what);
      }
      const other = await register();
      const slow = slipImage();
      fake.register(slow, { transRef: `TR${randomBytes(6).toString('hex')}`, amount: month.price });
      fake.delayMs = 3000;
      const started = Date.now();
      const timedOut = await json<{ status: string; reason: string }>(await slip(other.token, slow));
      fake.delayMs = 0;
      assert.deepEqual([timedOut.status, timedOut.reason], ['pending_review', 'provider_timeout']);
      assert.ok(Date.now() - started < 2500, 'the provider timeout applies');
      assert.equal((await json<{ user: { vip: boolean } }>(await call('GET', '/api/studio/auth/me', st(other.token)))).user.vip, false);

      // A user with a request waiting gets no second one, whatever the slip (the provider is not asked).
      const callsBeforeSecond = fake.calls;
      const second = await slip(other.token, slipImage());
      assert.equal(second.status, 409);
      assert.equal(await code(second), 'STUDIO_VIP_REQUEST_PENDING');
      assert.equal(fake.calls, callsBeforeSecond);
      const manualToo = await call('POST', '/api/studio/vip/request', st(other.token), { plan_id: 'vip_month', message: 'And by hand.' });
      assert.equal(manualToo.status, 409);
      // Parallel submissions of one user: at most one request waits.
      const racer = await register();
      const raced = await Promise.all([slipImage(), slipImage(), slipImage()].map((image) => slip(racer.token, image)));
      assert.deepEqual(raced.map((r) => r.status).sort(), [201, 409, 409]);
      const racerRows = await p.facade.deps.access.database.query<{ n: string }>("SELECT count(*)::text AS n FROM studio_vip_requests WHERE user_id = $1::text AND status = 'pending_review'", [racer.user.user_id]);
      assert.equal(racerRows[0]!.n, '1');

      // Hostile images, refused before the provider: a PNG signature before an HTML page, a whole PNG
      // with a page after its end, a corrupted chunk (CRC), a header claiming 20000 x 20000 pixels,
      // an image larger than 4096 x 4096 pixels.
      const clean = await register();
      const png = slipImage();
      const corrupt = Buffer.from(png);
      corrupt[corrupt.length - 20] = corrupt[corrupt.length - 20]! ^ 0xff;
      const bomb = Buffer.from(png);
      bomb.writeUInt32BE(20_000, 16);
      bomb.writeUInt32BE(20_000, 20);
      const hostile: [string, Buffer, string][] = [
        ['png-magic html', Buffer.concat([png.subarray(0, 8), Buffer.from('<html><body><script>alert(document.cookie)</script></body></html>')]), 'STUDIO_SLIP_NOT_IMAGE'],
        ['png then html', Buffer.concat([png, Buffer.from('<html><script>alert(1)</script></html>')]), 'STUDIO_SLIP_NOT_IMAGE'],
        ['bad crc', corrupt, 'STUDIO_SLIP_NOT_IMAGE'],
        ['20000 x 20000 header', bomb, 'STUDIO_SLIP_DIMENSIONS'],
        ['4097 x 1', testSlipPng(4097, 1), 'STUDIO_SLIP_DIMENSIONS'],
      ];
      const callsBeforeHostile = fake.calls;
      for (const [what, image, want] of hostile) {
        const res = await slip(clean.token, image);
        assert.equal(res.status, 422, what);
        assert.equal(await code(res), want, what);
      }
      assert.equal(fake.calls, callsBeforeHostile, 'the provider never saw a hostile file');
      assert.equal((await p.facade.deps.access.database.query<{ n: string }>('SELECT count(*)::text AS n FROM studio_vip_requests WHERE user_id = $1::text', [clean.user.user_id]))[0]!.n, '0');

      // Bad slips: not an image, too large (refused while streaming), a guest, an unknown plan.
      const plain = await register();
      const text = await slip(plain.token, Buffer.from('this is not an image at all'));
      assert.equal(text.status, 422);
      assert.equal(await code(text), 'STUDIO_SLIP_NOT_IMAGE');
      const huge = await slip(plain.token, Buffer.concat([slipImage(), Buffer.alloc(5 * 1024 * 1024)]));
      assert.equal(huge.status, 413);
      assert.equal(await code(huge), 'UPLOAD_TOO_LARGE');
      const g = await guest();
      const fromGuest = await slip(g.token, slipImage());
      assert.equal(fromGuest.status, 403);
      assert.equal(await code(fromGuest), 'STUDIO_REGISTRATION_REQUIRED');
      const plan = await slip(plain.token, slipImage(), 'vip_forever');
      assert.equal(plan.status, 422);
      assert.equal(await code(plan), 'STUDIO_VIP_PLAN_UNKNOWN');
      const missing = await fetch(url('/api/studio/vip/slip'), { method: 'POST', headers: st(plain.token), body: (() => { const f = new FormData(); f.append('plan_id', 'vip_month'); return f; })() });
      assert.equal(missing.status, 422);

      // Every state change is audited.
      assert.deepEqual((await audit(buyer.user.user_id)).filter((a) => a.startsWith('vip')), ['vip_request.submitted', 'vip_request.approved']);
      assert.deepEqual((await audit(cheat.user.user_id)).filter((a) => a.startsWith('vip')), ['vip_request.submitted', 'vip_request.rejected', 'vip_request.submitted', 'vip_request.rejected']);
    });

    test('administrators decide waiting requests once; approval grants VIP; other moves are 409', async () => {
      const alice = await register();
      const manual = await call('POST', '/api/studio/vip/request', st(alice.token), { plan_id: 'vip_year', message: 'Paid by invoice 118.' });
      assert.equal(manual.status, 201);
      const req = await json<{ request_id: string; status: string }>(manual);
      assert.equal(req.status, 'pending_review');
      const second = await call('POST', '/api/studio/vip/request', st(alice.token), { plan_id: 'vip_year', message: 'Again.' });
      assert.equal(second.status, 409);
      assert.equal(await code(second), 'STUDIO_VIP_REQUEST_PENDING');

      const pending = await json<{ data: { request_id: string; message: string; user_id: string }[] }>(await call('GET', '/api/studio/admin/vip-requests?status=pending_review&limit=1000', admin()));
      const row = pending.data.find((r) => r.request_id === req.request_id);
      assert.deepEqual([row?.message, row?.user_id], ['Paid by invoice 118.', alice.user.user_id]);
      const notAdmin = await call('POST', `/api/studio/admin/vip-requests/${req.request_id}/approve`, st(alice.token));
      assert.equal(notAdmin.status, 403);
      assert.equal(await code(notAdmin), 'STUDIO_ADMIN_REQUIRED');

      // A studio user with the admin role decides.
      const boss = await register();
      assert.equal((await call('PATCH', `/api/studio/admin/users/${boss.user.user_id}`, admin(), { role: 'admin' })).status, 200);
      const ok = await call('POST', `/api/studio/admin/vip-requests/${req.request_id}/approve`, st(boss.token));
      assert.equal(ok.status, 200);
      const decided = await json<{ status: string; vip_until: string; decided_by: string }>(ok);
      assert.deepEqual([decided.status, decided.decided_by], ['approved', `studio:${boss.user.user_id}`]);
      assert.ok(Date.parse(decided.vip_until) - Date.now() > 364 * 86_400_000);
      for (const verb of ['approve', 'reject']) {
        const res = await call('POST', `/api/studio/admin/vip-requests/${req.request_id}/${verb}`, admin());
        assert.equal(res.status, 409, verb);
        assert.equal(await code(res), 'STUDIO_VIP_REQUEST_DECIDED');
      }
      const bob = await register();
      const bobReq = await json<{ request_id: string }>(await call('POST', '/api/studio/vip/request', st(bob.token), { plan_id: 'vip_month', message: 'Please.' }));
      const rejected = await call('POST', `/api/studio/admin/vip-requests/${bobReq.request_id}/reject`, admin());
      assert.equal((await json<{ status: string }>(rejected)).status, 'rejected');
      assert.equal((await call('POST', `/api/studio/admin/vip-requests/${bobReq.request_id}/approve`, admin())).status, 409);
      assert.equal((await call('POST', '/api/studio/admin/vip-requests/vip_doesnotexist0/approve', admin())).status, 404);
      assert.equal((await json<{ user: { vip: boolean } }>(await call('GET', '/api/studio/auth/me', st(bob.token)))).user.vip, false);

      // Users: list, VIP by hand, self-lockout refused, all audited.
      const users = await json<{ data: { user_id: string; disabled: boolean }[] }>(await call('GET', '/api/studio/admin/users?limit=1000', st(boss.token)));
      assert.ok(users.data.some((u) => u.user_id === bob.user.user_id));
      const until = new Date(Date.now() + 5 * 86_400_000).toISOString();
      const vip = await json<{ vip: boolean; vip_until: string }>(await call('PATCH', `/api/studio/admin/users/${bob.user.user_id}`, st(boss.token), { vip_until: until }));
      assert.deepEqual([vip.vip, vip.vip_until], [true, until]);
      const self = await call('PATCH', `/api/studio/admin/users/${boss.user.user_id}`, st(boss.token), { role: 'user' });
      assert.equal(self.status, 409);
      assert.equal(await code(self), 'STUDIO_SELF_LOCKOUT');
      assert.equal((await call('PATCH', '/api/studio/admin/users/usr_doesnotexist00', admin(), { disabled: true })).status, 404);
      const actions = await audit(bob.user.user_id);
      assert.ok(actions.includes('vip_request.rejected') && actions.includes('vip.set_by_admin'), actions.join());
      // The audit refuses changes.
      await assert.rejects(p.facade.deps.access.database.query('DELETE FROM studio_audit WHERE user_id = $1::text', [bob.user.user_id]));

      // VIP ends by itself; the cleanup records the end.
      await p.facade.deps.access.database.query(`UPDATE studio_users SET vip_until = now() - interval '1 second' WHERE user_id = $1::text`, [bob.user.user_id]);
      assert.equal((await json<{ user: { vip: boolean } }>(await call('GET', '/api/studio/auth/me', st(bob.token)))).user.vip, false);
      const report = await p.facade.deps.cleanup.run();
      assert.ok((report.items.find((i) => i.name === 'studio_vip')?.removed ?? 0) >= 1);
      assert.ok((await audit(bob.user.user_id)).includes('vip.expired'));
    });

    test('revoking, disabling and changing the password take effect on the next request', async () => {
      const name = `eve${randomBytes(3).toString('hex')}`;
      const first = await register(name);
      const second = await json<Session>(await postJson(url('/api/studio/auth/login'), { login: name, password: PASSWORD }));
      const changed = await call('POST', '/api/studio/auth/password', st(second.token), { current_password: PASSWORD, new_password: 'a brand new passphrase here' });
      assert.equal(changed.status, 200);
      assert.equal((await json<{ other_sessions_ended: number }>(changed)).other_sessions_ended, 1);
      assert.equal((await call('GET', '/api/studio/auth/me', st(first.token))).status, 401);
      assert.equal((await call('GET', '/api/studio/auth/me', st(second.token))).status, 200);
      const wrong = await call('POST', '/api/studio/auth/password', st(second.token), { current_password: PASSWORD, new_password: 'another new passphrase' });
      assert.equal(wrong.status, 403);
      assert.equal(await code(wrong), 'STUDIO_PASSWORD_INCORRECT');
      assert.equal((await postJson(url('/api/studio/auth/login'), { login: name, password: PASSWORD })).status, 401);

      const revoked = await call('POST', `/api/studio/admin/users/${second.user.user_id}/revoke-sessions`, admin());
      assert.deepEqual(await json(revoked), { ok: true, sessions_ended: 1 });
      const refused = await call('GET', '/api/studio/auth/me', st(second.token));
      assert.equal(refused.status, 401);
      assert.equal(await code(refused), 'STUDIO_SESSION_INVALID');

      const third = await json<Session>(await postJson(url('/api/studio/auth/login'), { login: name, password: 'a brand new passphrase here' }));
      assert.equal((await call('PATCH', `/api/studio/admin/users/${third.user.user_id}`, admin(), { disabled: true })).status, 200);
      assert.equal((await call('GET', '/api/studio/presets', st(third.token))).status, 401);
      // A disabled account answers the right password as it answers a wrong one (no password oracle).
      const answer = async (password: string): Promise<[number, Record<string, unknown>]> => {
        const res = await loginFrom(freshAddress(), name, password);
        // Only the per-request ids may differ.
        const { request_id: _r, trace_id: _t, ...body } = await json<Record<string, unknown>>(res);
        return [res.status, body];
      };
      const right = await answer('a brand new passphrase here');
      assert.deepEqual(right, await answer('not the password at all'));
      assert.deepEqual([right[0], right[1]['code']], [401, 'STUDIO_LOGIN_FAILED']);
    });

    test('deleting an account removes its data and keeps the audit under an anonymous id', async () => {
      const name = `del${randomBytes(3).toString('hex')}`;
      const u = await register(name);
      const pr = await preset(u.token);
      const share = await json<{ share_token: string }>(await call('POST', `/api/studio/presets/${pr.preset_id}/share`, st(u.token), {}));
      const refused = await call('DELETE', '/api/studio/auth/me', st(u.token), { password: 'not my password at all' });
      assert.equal(refused.status, 403);
      const res = await call('DELETE', '/api/studio/auth/me', st(u.token), { password: PASSWORD });
      assert.equal(res.status, 200);
      assert.deepEqual(await json(res), { ok: true, removed: { presets: 1, shares: 1, sessions: 1, references: 0, jobs_cancelled: 0 } });
      assert.equal((await call('GET', '/api/studio/auth/me', st(u.token))).status, 401);
      assert.equal((await fetch(url(`/api/studio/share/${share.share_token}`))).status, 404);
      const row = (await p.facade.deps.access.database.query<Record<string, unknown>>('SELECT kind, username, email, password_hash FROM studio_users WHERE user_id = $1::text', [u.user.user_id]))[0]!;
      assert.deepEqual(row, { kind: 'deleted', username: null, email: null, password_hash: null });
      assert.deepEqual((await audit(u.user.user_id)).slice(-1), ['account.deleted']);
      // The name is free again.
      await register(name);
    });
  });
}

studioSuite('PostgreSQL and Redis', false);
studioSuite('embedded default', true);
