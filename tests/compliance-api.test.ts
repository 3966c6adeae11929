/**
 * Compliance over REST against a real platform (PostgreSQL, Redis, a node for watermark checks):
 * versioned terms and their acceptance per API key, public abuse reports with a watermark check of
 * an audio sample, and the reviewers' flow open -> reviewing -> actioned | dismissed, audited.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { openDatabase } from '@tts/common/data';
import { TEST_DATABASE_URL } from '@tts/common/testing';
import { postJson, startPlatform, waitFor, type TestPlatform } from './support/platform.js';

describe('compliance API', () => {
  let p: TestPlatform;
  before(async () => {
    p = await startPlatform({ facade: { meteringFlushMs: 20 } });
  });
  after(async () => {
    await p.stop();
  });
  const admin = (): Record<string, string> => ({ 'x-admin-key': p.adminKey });
  const code = async (res: Response): Promise<string> => ((await res.json()) as { code: string }).code;

  test('terms: versioned and fingerprinted; an API key accepts the current version once', async () => {
    const terms = (await (await fetch(`${p.url}/api/compliance/terms`)).json()) as { version: string; sha256: string; sections: { heading: string }[]; current: boolean; versions: string[] };
    assert.match(terms.sha256, /^[0-9a-f]{64}$/);
    assert.equal(terms.current, true);
    assert.ok(terms.versions.includes(terms.version));
    assert.ok(terms.sections.some((s) => s.heading === 'Consent'));
    const first = await p.post('/api/compliance/terms/accept', { version: terms.version });
    assert.equal(first.status, 201);
    const accepted = (await first.json()) as { accepted_at: string; sha256: string; subject_type: string };
    assert.deepEqual([accepted.sha256, accepted.subject_type], [terms.sha256, 'api_key']);
    const again = await p.post('/api/compliance/terms/accept', { version: terms.version });
    assert.equal(again.status, 200);
    assert.equal(((await again.json()) as { accepted_at: string }).accepted_at, accepted.accepted_at, 'idempotent');
    const unknown = await p.post('/api/compliance/terms/accept', { version: '1999-01-01' });
    assert.equal(unknown.status, 422);
    assert.equal(await code(unknown), 'TERMS_VERSION_UNKNOWN');
    assert.equal((await postJson(`${p.url}/api/compliance/terms/accept`, { version: terms.version })).status, 401);
  });

  test('an abuse report with a sample of our audio is linked to the request that made it', async () => {
    const tts = await p.post('/api/tts', { text: 'This is audio someone misused to impersonate a bank clerk.', voice: 'flite:slt', consent_confirmed: true });
    assert.equal(tts.status, 200);
    const requestId = tts.headers.get('x-request-id')!;
    const sample = Buffer.from(await tts.arrayBuffer()).toString('base64');
    // The consent record the link is found by is written behind the response.
    await waitFor(async () => {
      const rows = await p.facade.deps.access.database.query<{ n: number }>('SELECT count(*)::int8 AS n FROM consent_audit WHERE request_id = $1::text', [requestId]);
      return Number(rows[0]!.n) > 0;
    }, 10_000, 'the consent record');
    const filed = await postJson(`${p.url}/api/compliance/abuse/report`, { category: 'impersonation', description: 'This voice called my mother pretending to be her bank.', reporter_contact: 'victim@example.org', audio_sample_base64: sample });
    const receipt = (await filed.json()) as { report_id: string; status: string; watermark_detected: boolean | null; linked_request_id?: string };
    assert.equal(filed.status, 201, JSON.stringify(receipt));
    assert.deepEqual([receipt.status, receipt.watermark_detected, receipt.linked_request_id], ['open', true, undefined], 'the reporter does not see the request');
    const full = (await (await fetch(`${p.url}/api/compliance/abuse/reports/${receipt.report_id}`, { headers: admin() })).json()) as { linked_request_id: string; watermark: { payload: string }; reporter_contact: string; history: { to: string }[] };
    assert.equal(full.linked_request_id, requestId);
    assert.match(full.watermark.payload, /^[0-9a-f]{8}$/);
    assert.equal(full.reporter_contact, 'victim@example.org');
    assert.deepEqual(full.history.map((h) => h.to), ['open']);

    const notAudio = await postJson(`${p.url}/api/compliance/abuse/report`, { category: 'other', description: 'The sample here is not audio at all.', audio_sample_base64: Buffer.from('plain text, no audio').toString('base64') });
    assert.equal(notAudio.status, 201);
    assert.equal(((await notAudio.json()) as { watermark_detected: boolean | null }).watermark_detected, null);
  });

  test('bad reports get stable codes', async () => {
    const file = (body: unknown): Promise<Response> => postJson(`${p.url}/api/compliance/abuse/report`, body);
    const badB64 = await file({ category: 'fraud', description: 'A description long enough.', audio_sample_base64: 'not base64 !!' });
    assert.equal(badB64.status, 422);
    assert.equal(await code(badB64), 'ABUSE_SAMPLE_INVALID');
    const big = await file({ category: 'fraud', description: 'A description long enough.', audio_sample_base64: Buffer.alloc(600 * 1024, 3).toString('base64') });
    assert.ok(big.status === 413 || big.status === 422, `${big.status}`);
    const short = await file({ category: 'fraud', description: 'short' });
    assert.equal(short.status, 422);
    const category = await file({ category: 'spam-ish', description: 'A description long enough.' });
    assert.equal(category.status, 422);
  });

  test('reviewers move reports open -> reviewing -> actioned | dismissed; other moves are 409; all audited', async () => {
    const filed = (await (await postJson(`${p.url}/api/compliance/abuse/report`, { category: 'harassment', description: 'Harassing messages in this voice.' })).json()) as { report_id: string };
    const move = (status: string, note?: string): Promise<Response> => postJson(`${p.url}/api/compliance/abuse/reports/${filed.report_id}/status`, { status, ...(note ? { note } : {}) }, admin());
    const skip = await move('actioned');
    assert.equal(skip.status, 409);
    assert.equal(await code(skip), 'ABUSE_REPORT_TRANSITION_INVALID');
    assert.equal((await move('reviewing', 'looking into it')).status, 200);
    const open = (await (await fetch(`${p.url}/api/compliance/abuse/reports?status=reviewing`, { headers: admin() })).json()) as { data: { report_id: string }[] };
    assert.ok(open.data.some((r) => r.report_id === filed.report_id));
    const dismissed = await move('dismissed', 'not reproducible');
    assert.equal(dismissed.status, 200);
    const body = (await dismissed.json()) as { status: string; history: { from: string | null; to: string; actor: string; note: string | null }[] };
    assert.equal(body.status, 'dismissed');
    assert.deepEqual(body.history.map((h) => [h.from, h.to, h.note]), [[null, 'open', null], ['open', 'reviewing', 'looking into it'], ['reviewing', 'dismissed', 'not reproducible']]);
    assert.equal((await move('reviewing')).status, 409, 'a closed report stays closed');
    const missing = await postJson(`${p.url}/api/compliance/abuse/reports/abr_doesnotexist00/status`, { status: 'reviewing' }, admin());
    assert.equal(missing.status, 404);
    assert.equal(await code(missing), 'ABUSE_REPORT_NOT_FOUND');
    assert.equal((await p.get('/api/compliance/abuse/reports')).status, 403, 'an API key is not a reviewer');
    const limit = await fetch(`${p.url}/api/compliance/abuse/reports?limit=1001`, { headers: admin() });
    assert.equal(limit.status, 422);

    const db = await openDatabase({ url: TEST_DATABASE_URL, schema: p.facade.deps.config.dbSchema });
    try {
      await assert.rejects(db.query("UPDATE abuse_report_audit SET note = 'rewritten'"), 'the audit is append-only');
    } finally {
      await db.close();
    }
  });
});
