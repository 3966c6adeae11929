/**
 * Studio users synthesize, against a real platform on PostgreSQL + Redis and on the embedded
 * default: POST /api/tts and web jobs with a studio session, a preset as the voice setup, the
 * studio tiers (text length, characters per day, VIP above), usage counted under the user, web jobs
 * owned by the studio user (owner kind STUDIO in the scheduler) and listed on every session of the
 * user only, reference clips owned by the studio user and used by a preset's clone mode.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { JobOwnerKind } from '@tts/proto/scheduler';
import { inspectClip, assertSpeech } from './support/audio.js';
import { postJson, startPlatform, waitFor, type TestPlatform } from './support/platform.js';

const run = promisify(execFile);
const PASSWORD = 'purple elephants dance at noon';

interface Session { token: string; user: { user_id: string; kind: string } }
interface SynthesisTier { tier: string; max_text_length: number; daily_char_quota: number; used: { day_characters: number; stage: string } }

function suite(label: string, embedded: boolean): void {
  describe(`studio synthesis (${label})`, () => {
    let p: TestPlatform;
    let work: string;
    let rmsClip: Buffer;
    before(async () => {
      work = await mkdtemp(path.join(tmpdir(), 'tts-studio-'));
      await run('flite', ['-voice', 'rms', '-t', 'The weather today is sunny with a light breeze. Children played quietly in the garden.', '-o', path.join(work, 'rms.wav')]);
      rmsClip = await readFile(path.join(work, 'rms.wav'));
      p = await startPlatform({
        node: { engines: ['flite'], defaultVoice: 'flite:slt' },
        facade: { defaultVoice: 'flite:slt', meteringFlushMs: 20, ...(embedded ? { databaseUrl: undefined, redisUrl: undefined, ephemeral: true } : {}) },
      });
    });
    after(async () => {
      await p?.stop();
      if (work) await rm(work, { recursive: true, force: true });
    });

    const url = (p2: string): string => `${p.url}${p2}`;
    const st = (token: string): Record<string, string> => ({ 'x-studio-token': token });
    const json = async <T>(res: Response): Promise<T> => (await res.json()) as T;
    const code = async (res: Response): Promise<string> => ((await res.json()) as { code: string }).code;
    const register = async (): Promise<Session> => {
      const res = await postJson(url('/api/studio/auth/register'), { username: `syn${randomBytes(4).toString('hex')}`, password: PASSWORD });
      assert.equal(res.status, 201, await res.clone().text());
      return json<Session>(res);
    };
    const guest = async (): Promise<Session> => json<Session>(await fetch(url('/api/studio/auth/guest'), { method: 'POST' }));
    const preset = async (token: string, body: Record<string, unknown>): Promise<string> => {
      const res = await postJson(url('/api/studio/presets'), body, st(token));
      assert.equal(res.status, 201, await res.clone().text());
      return (await json<{ preset_id: string }>(res)).preset_id;
    };
    const tier = async (token: string): Promise<SynthesisTier> => (await json<{ synthesis: SynthesisTier }>(await fetch(url('/api/studio/auth/me'), { headers: st(token) }))).synthesis;

    test('POST /api/tts with a preset: its voice, speed and format, under the studio profile, counted for the user', async () => {
      const u = await register();
      const presetId = await preset(u.token, { name: 'Fast rms', voice: 'flite:rms', speed: 2, format: 'wav' });
      const text = 'The studio speaks with the voice of its preset.';
      const res = await postJson(url('/api/tts'), { text, preset_id: presetId }, st(u.token));
      const audio = new Uint8Array(await res.arrayBuffer());
      assert.equal(res.status, 200, Buffer.from(audio).toString());
      assert.equal(res.headers.get('x-tts-voice'), 'flite:rms', 'the preset names the voice');
      assert.equal(res.headers.get('content-type'), 'audio/wav');
      assert.equal(res.headers.get('ratelimit-limit'), '8', 'synthesis is counted on the studio profile');
      assert.equal(res.headers.get('x-quota-stage'), 'ok');
      const fast = await inspectClip(audio);
      assertSpeech(fast, 0.5, 10);

      // What the request names wins over the preset: the same text at speed 1 is longer.
      const slow = await postJson(url('/api/tts'), { text, preset_id: presetId, speed: 1 }, st(u.token));
      assert.equal(slow.status, 200);
      assert.equal(slow.headers.get('x-tts-voice'), 'flite:rms');
      const slowClip = await inspectClip(new Uint8Array(await slow.arrayBuffer()));
      assert.ok(slowClip.durationSec > fast.durationSec * 1.5, `speed 2 (${fast.durationSec.toFixed(2)} s) against speed 1 (${slowClip.durationSec.toFixed(2)} s)`);

      await p.facade.deps.metering.drain();
      const rows = await p.facade.deps.access.database.query<{ auth_method: string; key_id: string; tier: string; characters: number }>(
        "SELECT auth_method, key_id, tier, characters FROM usage_events WHERE key_id = $1::text ORDER BY id",
        [`studio:${u.user.user_id}`],
      );
      assert.deepEqual(rows.map((r) => [r.auth_method, r.tier, Number(r.characters)]), [['studio', 'studio_member', text.length], ['studio', 'studio_member', text.length]]);
      const t = await tier(u.token);
      assert.deepEqual([t.tier, t.used.day_characters, t.used.stage], ['studio_member', text.length * 2, 'ok']);
    });

    test('tiers: a guest is held to its text length, VIP gets the higher tier', async () => {
      const g = await guest();
      const gt = await tier(g.token);
      assert.equal(gt.tier, 'studio_guest');
      const long = 'This sentence is repeated to pass the guest limit. '.repeat(Math.ceil((gt.max_text_length + 1) / 51)).slice(0, gt.max_text_length + 1).trim() + '.';
      assert.ok(long.length > gt.max_text_length);
      const refused = await postJson(url('/api/tts'), { text: long }, st(g.token));
      assert.equal(refused.status, 422);
      assert.equal(await code(refused), 'TTS_TEXT_TOO_LONG');

      const v = await register();
      const granted = await fetch(url(`/api/studio/admin/users/${v.user.user_id}`), {
        method: 'PATCH', headers: { 'content-type': 'application/json', 'x-admin-key': p.adminKey }, body: JSON.stringify({ vip_until: new Date(Date.now() + 86_400_000).toISOString() }),
      });
      assert.equal(granted.status, 200, await granted.clone().text());
      const vt = await tier(v.token);
      assert.equal(vt.tier, 'studio_vip');
      assert.ok(vt.max_text_length > gt.max_text_length && vt.daily_char_quota > gt.daily_char_quota);
      const ok = await postJson(url('/api/tts'), { text: long }, st(v.token));
      assert.equal(ok.status, 200, await ok.clone().text());
      assertSpeech(await inspectClip(new Uint8Array(await ok.arrayBuffer())), 5, 120);
    });

    test('a preset is its owner\'s only: other users, API keys and unknown ids are refused before synthesis', async () => {
      const a = await register();
      const b = await register();
      const presetId = await preset(a.token, { name: 'Mine', voice: 'flite:awb' });
      const foreign = await postJson(url('/api/tts'), { text: 'Not my preset.', preset_id: presetId }, st(b.token));
      assert.equal(foreign.status, 404);
      assert.equal(await code(foreign), 'STUDIO_PRESET_NOT_FOUND');
      const byKey = await p.post('/api/tts', { text: 'A key has no presets.', preset_id: presetId });
      assert.equal(byKey.status, 401);
      assert.equal(await code(byKey), 'STUDIO_SESSION_MISSING');
      const unknown = await postJson(url('/api/tts'), { text: 'Unknown.', preset_id: 'pst_doesnotexist00' }, st(a.token));
      assert.equal(unknown.status, 404);
      const malformed = await postJson(url('/api/tts'), { text: 'Malformed.', preset_id: '../x' }, st(a.token));
      assert.equal(malformed.status, 422);
      const webForeign = new FormData();
      webForeign.append('text', 'Not my preset either.');
      webForeign.append('preset_id', presetId);
      const web = await fetch(url('/api/web/jobs/tts'), { method: 'POST', headers: st(b.token), body: webForeign });
      assert.equal(web.status, 404);
      await p.facade.deps.metering.drain();
      const rows = await p.facade.deps.access.database.query<{ n: number }>('SELECT COUNT(*)::int AS n FROM usage_events WHERE key_id = $1::text', [`studio:${b.user.user_id}`]);
      assert.equal(Number(rows[0]!.n), 0, 'nothing was synthesized or counted');
    });

    test('web jobs of a studio user: owner kind STUDIO, the preset applied, listed on every session of the user only', async () => {
      const u = await register();
      const other = await register();
      const presetId = await preset(u.token, { name: 'Job voice', voice: 'flite:kal16', speed: 1.25 });
      const form = new FormData();
      form.append('text', 'A studio web job with a preset.');
      form.append('preset_id', presetId);
      const res = await fetch(url('/api/web/jobs/tts'), { method: 'POST', headers: st(u.token), body: form });
      assert.equal(res.status, 200, await res.clone().text());
      const created = await json<{ job_id: string; job_token: string; rate_limit: { limit: number } }>(res);
      assert.equal(created.rate_limit.limit, 8);
      const job = await p.facade.deps.jobs.get(created.job_id);
      assert.equal(job?.ownerKind, JobOwnerKind.JOB_OWNER_KIND_STUDIO);
      assert.equal(job?.ownerId, u.user.user_id);
      assert.equal(job?.tier, 'studio_member');
      assert.equal(job?.spec?.speech?.voice, 'flite:kal16');
      assert.equal(job?.spec?.speech?.speed, 1.25);
      let status = '';
      await waitFor(async () => {
        const r = await fetch(url(`/api/web/jobs/${created.job_id}`), { headers: { 'x-job-token': created.job_token } });
        status = (await json<{ status: string }>(r)).status;
        return status === 'completed' || status === 'failed';
      }, 30_000, 'the studio job to finish');
      assert.equal(status, 'completed');
      const audio = await fetch(url(`/api/web/jobs/${created.job_id}/audio`), { headers: { 'x-job-token': created.job_token } });
      assert.equal(audio.status, 200);
      assertSpeech(await inspectClip(new Uint8Array(await audio.arrayBuffer())), 0.5, 10);

      const login = await json<Session>(await postJson(url('/api/studio/auth/login'), { login: (await json<{ user: { username: string } }>(await fetch(url('/api/studio/auth/me'), { headers: st(u.token) }))).user.username, password: PASSWORD }));
      const listed = await fetch(url('/api/web/jobs'), { headers: st(login.token) });
      assert.equal(listed.status, 200);
      assert.equal(listed.headers.get('ratelimit-limit'), '120', 'listing is on the editing budget');
      const listedJobs = (await json<{ jobs: { job_id: string; job_token: string }[] }>(listed)).jobs;
      assert.deepEqual(listedJobs.map((j) => j.job_id), [created.job_id]);
      // The other session follows the job with the token the listing gives it.
      const again = await fetch(url(`/api/web/jobs/${created.job_id}/audio`), { headers: { 'x-job-token': listedJobs[0]!.job_token } });
      assert.equal(again.status, 200);
      assertSpeech(await inspectClip(new Uint8Array(await again.arrayBuffer())), 0.5, 10);
      const others = await json<{ jobs: unknown[] }>(await fetch(url('/api/web/jobs'), { headers: st(other.token) }));
      assert.deepEqual(others.jobs, []);
    });

    test('deleting a studio account revokes its web jobs: status, audio, captions and events answer 404 to their job tokens', async () => {
      for (const kind of ['registered', 'guest'] as const) {
        const u = kind === 'registered' ? await register() : await guest();
        const form = new FormData();
        form.append('text', 'A job of an account about to be deleted.');
        const res = await fetch(url('/api/web/jobs/tts'), { method: 'POST', headers: st(u.token), body: form });
        assert.equal(res.status, 200, await res.clone().text());
        const created = await json<{ job_id: string; job_token: string }>(res);
        const withToken = { headers: { 'x-job-token': created.job_token } };
        await waitFor(async () => (await json<{ status: string }>(await fetch(url(`/api/web/jobs/${created.job_id}`), withToken))).status === 'completed', 30_000, 'the job to finish');
        assert.equal((await fetch(url(`/api/web/jobs/${created.job_id}/audio`), withToken)).status, 200);

        const deleted = await fetch(url('/api/studio/auth/me'), { method: 'DELETE', headers: { ...st(u.token), 'content-type': 'application/json' }, body: JSON.stringify(kind === 'registered' ? { password: PASSWORD } : {}) });
        assert.equal(deleted.status, 200, await deleted.clone().text());
        for (const tail of ['', '/audio', '/captions', '/events']) {
          const after = await fetch(url(`/api/web/jobs/${created.job_id}${tail}`), withToken);
          assert.equal(after.status, 404, `${kind} ${tail || 'status'}`);
          assert.equal(await code(after), 'JOB_NOT_FOUND');
        }
      }
    });

    test('reference clips owned by the studio user; a preset with a reference clones, with consent', async () => {
      const u = await register();
      const f = new FormData();
      f.append('ref_audio', new Blob([rmsClip]), 'me.wav');
      const v = await fetch(url('/api/reference/validate'), { method: 'POST', headers: st(u.token), body: f });
      assert.equal(v.status, 200, await v.clone().text());
      const { reference_id } = await json<{ reference_id: string }>(v);
      const mine = await json<{ data: { reference_id: string }[] }>(await fetch(url('/api/reference/clips'), { headers: st(u.token) }));
      assert.deepEqual(mine.data.map((r) => r.reference_id), [reference_id]);
      const other = await register();
      assert.equal((await fetch(url(`/api/reference/clips/${reference_id}`), { headers: st(other.token) })).status, 404, 'another user does not see the clip');
      assert.equal((await fetch(url(`/api/reference/clips/${reference_id}`), { headers: { 'x-api-key': p.apiKey } })).status, 404, 'nor does an API key');

      const presetId = await preset(u.token, { name: 'My voice', reference_id });
      const noConsent = await postJson(url('/api/tts'), { text: 'Speak like my clip.', preset_id: presetId }, st(u.token));
      assert.equal(noConsent.status, 422);
      assert.equal(await code(noConsent), 'CONSENT_REQUIRED');
      const cloned = await postJson(url('/api/tts'), { text: 'Speak like my clip.', preset_id: presetId, consent_confirmed: true }, st(u.token));
      assert.equal(cloned.status, 200, await cloned.clone().text());
      assert.equal(cloned.headers.get('x-clone-voice'), 'flite:rms', 'the clip\'s speaker is found');
      assertSpeech(await inspectClip(new Uint8Array(await cloned.arrayBuffer())), 0.5, 10);

      const terms = await json<{ version: string }>(await fetch(url('/api/compliance/terms')));
      const accepted = await postJson(url('/api/compliance/terms/accept'), { version: terms.version }, st(u.token));
      assert.equal(accepted.status, 201, await accepted.clone().text());
      assert.deepEqual(Object.entries(await json<Record<string, unknown>>(accepted)).filter(([k]) => k.startsWith('subject')), [['subject_type', 'studio_user'], ['subject_id', u.user.user_id]]);

      const deleted = await fetch(url('/api/studio/auth/me'), { method: 'DELETE', headers: { ...st(u.token), 'content-type': 'application/json' }, body: JSON.stringify({ password: PASSWORD }) });
      assert.equal(deleted.status, 200);
      assert.equal((await json<{ removed: { references: number } }>(deleted)).removed.references, 1, 'deleting the account removes its clips');
      const left = await p.facade.deps.access.database.query<{ n: number }>('SELECT COUNT(*)::int AS n FROM reference_audio WHERE owner_key_id = $1::text', [`studio:${u.user.user_id}`]);
      assert.equal(Number(left[0]!.n), 0);
    });
  });
}

suite('PostgreSQL and Redis', false);
suite('embedded default', true);
