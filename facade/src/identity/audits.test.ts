import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { AuditRepository, FACADE_MIGRATIONS } from '../data/index.js';
import { databaseBackends } from '@tts/common/testing';
import { TtsError, createLogger } from '@tts/common';
import { AuditService } from './audits.js';
import { consentAuditView, jobAccessAuditView } from './identity-views.js';

const code = (c: string, field?: string) => (e: unknown) => e instanceof TtsError && e.code === c && (field === undefined || e.loc[1] === field);

for (const backend of databaseBackends(FACADE_MIGRATIONS)) {
  describe(`audit service (${backend.name})`, () => {
    after(() => backend.close());

    it('aggregates repeated job-token denials of one address and job: the first at once, the repeats in one record', async (t) => {
      const audits = new AuditService(new AuditRepository(await backend.open(t)), createLogger('test'), { denialWindowMs: 60_000 });
      const denial = { requestId: 'g', endpoint: 'GET /api/web/jobs/{job_id}', jobId: 'jw', requesterKind: 'job_token' as const, requesterKeyId: null, ownerKeyId: null, allowed: false, reason: 'job_token_invalid' };
      for (let i = 0; i < 150; i++) await audits.recordDeniedAccess({ ...denial, requestId: `g${i}`, clientAddress: '203.0.113.1' });
      await audits.recordDeniedAccess({ ...denial, clientAddress: '203.0.113.2' });
      await audits.recordDeniedAccess({ ...denial, jobId: 'other', clientAddress: '203.0.113.1' });
      const before = jobAccessAuditView(await audits.jobAccess({ only_denied: 'true' })).records as { job_id: string; attempts: number; client_address: string }[];
      assert.equal(before.length, 3, 'one record per address and job opened at once');
      assert.ok(before.every((r) => r.attempts === 1));
      await audits.drain();
      const after = jobAccessAuditView(await audits.jobAccess({ only_denied: 'true' })).records as { job_id: string; attempts: number; client_address: string; request_id: string }[];
      const guessed = after.filter((r) => r.job_id === 'jw' && r.client_address === '203.0.113.1');
      assert.deepEqual(guessed.map((r) => r.attempts).sort((a, b) => a - b), [1, 149]);
      assert.equal(guessed.find((r) => r.attempts === 149)?.request_id, 'g149', 'the repeats carry the last request id');
      assert.equal(after.length, 4);
    });

    it('records job accesses and filters them as the interface lists (only_denied, requester, owner)', async (t) => {
      const audits = new AuditService(new AuditRepository(await backend.open(t)), createLogger('test'));
      const base = { requestId: 'r1', endpoint: 'GET /api/jobs/{job_id}', jobId: 'j1', requesterKind: 'api_key' as const, ownerKeyId: 'owner' };
      await audits.recordJobAccess({ ...base, requesterKeyId: 'owner', allowed: true, reason: 'owner' });
      await audits.recordJobAccess({ ...base, requesterKeyId: 'stranger', allowed: false, reason: 'not_owner' });
      await audits.recordJobAccess({ ...base, endpoint: 'GET /api/jobs/{job_id}/audio', requesterKeyId: 'owner', allowed: true, reason: 'owner' });

      const denied = jobAccessAuditView(await audits.jobAccess({ only_denied: 'true' }));
      const records = denied['records'] as Record<string, unknown>[];
      assert.equal(records.length, 1);
      assert.equal(records[0]!['requester_key_id'], 'stranger');
      assert.equal(records[0]!['owner_key_id'], 'owner');
      assert.equal(records[0]!['allowed'], false);
      assert.match(String(records[0]!['created_at']), /^\d{4}-\d{2}-\d{2}T/);
      assert.equal((await audits.jobAccess({ requester_key_id: 'owner' })).total, 2);
      assert.equal((await audits.jobAccess({ owner_key_id: 'owner', endpoint: 'GET /api/jobs/{job_id}/audio' })).total, 1);
      const page = await audits.jobAccess({ limit: 2 });
      assert.deepEqual([page.records.length, page.total, page.truncated, page.limit], [2, 3, true, 2]);
      const day = (offset: number): string => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
      assert.equal((await audits.jobAccess({ day_from: day(-1), day_to: day(1) })).total, 3);
      assert.equal((await audits.jobAccess({ day_from: day(2) })).total, 0);
      assert.equal((await audits.jobAccess({ day_to: '2000-01-01' })).total, 0);
    });

    it('records consent outcomes and filters them (only_failures, mode, endpoint)', async (t) => {
      const audits = new AuditService(new AuditRepository(await backend.open(t)), createLogger('test'));
      const base = { requestId: null, endpoint: 'POST /api/tts', authMethod: 'api_key', keyId: 'k' };
      audits.recordConsent({ ...base, mode: 'auto', consentConfirmed: true, outcome: 'ok', errorCode: null });
      audits.recordConsent({ ...base, mode: 'clone', consentConfirmed: false, outcome: 'refused', errorCode: 'VALIDATION_FAILED' });
      audits.recordConsent({ ...base, endpoint: 'POST /api/web/jobs/tts', mode: 'auto', authMethod: 'challenge', keyId: null, consentConfirmed: true, outcome: 'error', errorCode: 'TTS_ENGINE_FAILED' });
      assert.equal((await audits.consent({})).total, 0, 'consent records are written behind the caller');
      await audits.drain();
      const failures = consentAuditView(await audits.consent({ only_failures: true }));
      assert.deepEqual((failures['records'] as Record<string, unknown>[]).map((r) => [r['outcome'], r['consent_confirmed'], r['mode']]), [
        ['error', true, 'auto'],
        ['refused', false, 'clone'],
      ]);
      assert.equal((await audits.consent({ mode: 'auto' })).total, 2);
      assert.equal((await audits.consent({ endpoint: 'POST /api/tts', only_failures: 'false' })).total, 2);
    });

    it('answers bad parameters with stable 422 codes', async (t) => {
      const audits = new AuditService(new AuditRepository(await backend.open(t)), createLogger('test'));
      await assert.rejects(audits.jobAccess({ day_from: '2024-13-01' }), code('USAGE_DATE_INVALID', 'day_from'));
      await assert.rejects(audits.consent({ day_from: '2024-05-02', day_to: '2024-05-01' }), code('USAGE_DATE_RANGE_INVALID'));
      await assert.rejects(audits.jobAccess({ only_denied: 'maybe' }), code('VALIDATION_FAILED', 'only_denied'));
      await assert.rejects(audits.consent({ only_failures: 2 }), code('VALIDATION_FAILED', 'only_failures'));
      await assert.rejects(audits.jobAccess({ limit: 5001 }), code('VALIDATION_FAILED', 'limit'));
      await assert.rejects(audits.consent({ limit: '0' }), code('VALIDATION_FAILED', 'limit'));
    });
  });
}
