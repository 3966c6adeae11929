/**
 * Data and identity end to end over HTTP, against the real PostgreSQL and Redis: the credential
 * matrix of every documented operation, API-key lifecycle, the anti-bot challenge, rate limits,
 * quotas, usage and audits, and that no secret reaches a log line or an error body.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setLogSink } from '@tts/common';
import { loadOpenApiDocument, operationsOf, solveChallenge } from '@tts/facade/testing';
import { postJson, startPlatform, waitFor, type TestPlatform } from './support/platform.js';
import { toneWav } from './support/audio.js';

const logLines: string[] = [];

/** A minimal valid request per operation and the status it answers when allowed. */
const SAMPLES: Record<string, { method: string; path: string; body?: unknown; form?: Record<string, string>; files?: Record<string, 'tone.wav'>; ok: number; okFor?: Partial<Record<Credential, number>> }> = {
  // Studio: a valid studio credential is a fresh guest session (see 'valid_studio'); PRESETID,
  // SHAREID and SHARETOKEN belong to another user, so the guest gets 404 where it passes access control.
  createStudioGuest: { method: 'POST', path: '/api/studio/auth/guest', ok: 201 },
  registerStudioUser: { method: 'POST', path: '/api/studio/auth/register', body: { password: 'matrix passphrase 123' }, ok: 422 },
  loginStudio: { method: 'POST', path: '/api/studio/auth/login', body: { login: '', password: 'x' }, ok: 422 },
  logoutStudio: { method: 'POST', path: '/api/studio/auth/logout', ok: 200 },
  getStudioMe: { method: 'GET', path: '/api/studio/auth/me', ok: 200 },
  deleteStudioAccount: { method: 'DELETE', path: '/api/studio/auth/me', ok: 200 },
  changeStudioPassword: { method: 'POST', path: '/api/studio/auth/password', body: { current_password: 'x', new_password: 'matrix passphrase 123' }, ok: 403 },
  getStudioVipInfo: { method: 'GET', path: '/api/studio/vip/info', ok: 200 },
  submitStudioVipSlip: { method: 'POST', path: '/api/studio/vip/slip', files: { slip: 'tone.wav' }, form: { plan_id: 'vip_month' }, ok: 403 },
  requestStudioVip: { method: 'POST', path: '/api/studio/vip/request', body: { plan_id: 'vip_month', message: 'Matrix.' }, ok: 403 },
  listStudioPresets: { method: 'GET', path: '/api/studio/presets', ok: 200 },
  createStudioPreset: { method: 'POST', path: '/api/studio/presets', body: { name: 'Matrix' }, ok: 201 },
  updateStudioPreset: { method: 'PATCH', path: '/api/studio/presets/PRESETID', body: { name: 'x' }, ok: 404 },
  deleteStudioPreset: { method: 'DELETE', path: '/api/studio/presets/PRESETID', ok: 404 },
  listStudioShares: { method: 'GET', path: '/api/studio/shares', ok: 200 },
  createStudioShare: { method: 'POST', path: '/api/studio/presets/PRESETID/share', body: {}, ok: 404 },
  revokeStudioShare: { method: 'DELETE', path: '/api/studio/shares/SHAREID', ok: 404 },
  getStudioShare: { method: 'GET', path: '/api/studio/share/SHARETOKEN', ok: 200 },
  forkStudioShare: { method: 'POST', path: '/api/studio/share/SHARETOKEN/fork', body: {}, ok: 201 },
  listStudioVipRequests: { method: 'GET', path: '/api/studio/admin/vip-requests', ok: 200 },
  approveStudioVipRequest: { method: 'POST', path: '/api/studio/admin/vip-requests/VIPID1/approve', ok: 200 },
  rejectStudioVipRequest: { method: 'POST', path: '/api/studio/admin/vip-requests/VIPID2/reject', ok: 200 },
  listStudioUsers: { method: 'GET', path: '/api/studio/admin/users', ok: 200 },
  updateStudioUser: { method: 'PATCH', path: '/api/studio/admin/users/USERID', body: { role: 'user' }, ok: 200 },
  revokeStudioUserSessions: { method: 'POST', path: '/api/studio/admin/users/USERID/revoke-sessions', ok: 200 },
  ttsSynthesize: { method: 'POST', path: '/api/tts', body: { text: 'Hi.', voice: 'flite:slt' }, ok: 200 },
  createSpeech: { method: 'POST', path: '/v1/audio/speech', body: { model: 'tts-1', input: 'Hi.', voice: 'flite:slt', response_format: 'wav' }, ok: 200 },
  // A WebSocket operation without the upgrade: past access control, the handler's 426.
  streamSpeech: { method: 'GET', path: '/v1/audio/speech/stream', ok: 426 },
  createSpeechStreamToken: { method: 'POST', path: '/v1/audio/speech/stream/tokens', ok: 201 },
  elevenLabsConvert: { method: 'POST', path: '/v1/text-to-speech/flite:slt?output_format=pcm_16000', body: { text: 'Hi.' }, ok: 200 },
  elevenLabsStream: { method: 'POST', path: '/v1/text-to-speech/flite:slt/stream?output_format=pcm_16000', body: { text: 'Hi.' }, ok: 200 },
  elevenLabsConvertWithTimestamps: { method: 'POST', path: '/v1/text-to-speech/flite:slt/with-timestamps?output_format=pcm_16000', body: { text: 'Hi.' }, ok: 200 },
  elevenLabsStreamWithTimestamps: { method: 'POST', path: '/v1/text-to-speech/flite:slt/stream/with-timestamps?output_format=ulaw_8000', body: { text: 'Hi.' }, ok: 200 },
  elevenLabsStreamInput: { method: 'GET', path: '/v1/text-to-speech/flite:slt/stream-input', ok: 426 },
  elevenLabsMultiStreamInput: { method: 'GET', path: '/v1/text-to-speech/flite:slt/multi-stream-input?output_format=pcm_16000', ok: 426 },
  elevenLabsListVoices: { method: 'GET', path: '/v1/voices', ok: 200 },
  elevenLabsSearchVoices: { method: 'GET', path: '/v2/voices?page_size=2', ok: 200 },
  listModels: { method: 'GET', path: '/v1/models', ok: 200 },
  retrieveModel: { method: 'GET', path: '/v1/models/tts-1', ok: 200 },
  listVoices: { method: 'GET', path: '/v1/audio/voices', ok: 200 },
  getHealth: { method: 'GET', path: '/api/health', ok: 200 },
  getCapabilities: { method: 'GET', path: '/api/capabilities', ok: 200 },
  listEngines: { method: 'GET', path: '/api/plugins/engines', ok: 200 },
  getVersion: { method: 'GET', path: '/api/system/version', ok: 200 },
  getQuickstart: { method: 'GET', path: '/api/quickstart', ok: 200 },
  exportOpenapi: { method: 'GET', path: '/api/openapi/export', ok: 200 },
  exportAsyncapi: { method: 'GET', path: '/api/asyncapi/export', ok: 200 },
  getErrorDocs: { method: 'GET', path: '/api/errors/docs', ok: 200 },
  classifyError: { method: 'POST', path: '/api/errors/classify', body: { http_status: 503 }, ok: 200 },
  getAuthConfig: { method: 'GET', path: '/api/auth/config', ok: 200 },
  listTiers: { method: 'GET', path: '/api/auth/tiers', ok: 200 },
  getAuthChallenge: { method: 'GET', path: '/api/auth/challenge', ok: 200 },
  solveAuthChallenge: { method: 'POST', path: '/api/auth/challenge', form: { challenge: 'x', solution: 'y' }, ok: 403 },
  listApiKeys: { method: 'GET', path: '/api/auth/keys', ok: 200 },
  createApiKey: { method: 'POST', path: '/api/auth/keys', body: { name: 'matrix' }, ok: 201 },
  updateApiKey: { method: 'PATCH', path: '/api/auth/keys/KEYID', body: { name: 'renamed' }, ok: 200 },
  getUsageSummary: { method: 'GET', path: '/api/usage/summary', ok: 200 },
  getCostDashboard: { method: 'GET', path: '/api/usage/cost-dashboard', ok: 200 },
  getJobAccessAudit: { method: 'GET', path: '/api/usage/job-access-audit', ok: 200 },
  getConsentAudit: { method: 'GET', path: '/api/compliance/consent-audit', ok: 200 },
  getSystemInfo: { method: 'GET', path: '/api/system/info', ok: 200 },
  getCleanupConfig: { method: 'GET', path: '/api/system/cleanup/config', ok: 200 },
  runCleanup: { method: 'POST', path: '/api/system/cleanup/run', ok: 200 },
  getAudioLogs: { method: 'GET', path: '/api/debug/audio-logs', ok: 200 },
  streamLogs: { method: 'GET', path: '/api/logs/stream?tail=1&follow=false', ok: 200 },
  getSloDashboard: { method: 'GET', path: '/api/slo/dashboard', ok: 200 },
  getSloAlerts: { method: 'GET', path: '/api/slo/alerts', ok: 200 },
  submitJob: { method: 'POST', path: '/api/jobs/tts', body: { text: 'Hi.', voice: 'flite:slt' }, ok: 202 },
  getJob: { method: 'GET', path: '/api/jobs/JOBID', ok: 200 },
  getJobAudio: { method: 'GET', path: '/api/jobs/JOBID/audio', ok: 200 },
  getJobCaptions: { method: 'GET', path: '/api/jobs/JOBID/captions?format=vtt', ok: 200 },
  submitWebJob: { method: 'POST', path: '/api/web/jobs/tts', form: { text: 'Hi.', voice: 'flite:slt' }, ok: 200 },
  listWebJobs: { method: 'GET', path: '/api/web/jobs', ok: 200 },
  getWebJob: { method: 'GET', path: '/api/web/jobs/WEBJOBID?token=WEBTOKEN', ok: 200 },
  listWebJobEvents: { method: 'GET', path: '/api/web/jobs/WEBJOBID/events?token=WEBTOKEN', ok: 200 },
  getWebJobAudio: { method: 'GET', path: '/api/web/jobs/WEBJOBID/audio?token=WEBTOKEN', ok: 200 },
  getWebJobCaptions: { method: 'GET', path: '/api/web/jobs/WEBJOBID/captions?format=srt&token=WEBTOKEN', ok: 200 },
  getWebConfig: { method: 'GET', path: '/api/web/config', ok: 200 },
  getWebSystemStatus: { method: 'GET', path: '/api/web/system/status', ok: 200 },
  validateReference: { method: 'POST', path: '/api/reference/validate', files: { ref_audio: 'tone.wav' }, ok: 200 },
  transcribeReference: { method: 'POST', path: '/api/reference/transcribe', files: { ref_audio: 'tone.wav' }, ok: 200 },
  listReferences: { method: 'GET', path: '/api/reference/clips', ok: 200 },
  // REFID is the valid key's clip: a studio user (its own clips' owner) does not find it.
  getReference: { method: 'GET', path: '/api/reference/clips/REFID', ok: 200, okFor: { valid_studio: 404 } },
  deleteReference: { method: 'DELETE', path: '/api/reference/clips/REFID', ok: 200, okFor: { valid_studio: 404 } },
  detectWatermark: { method: 'POST', path: '/api/provenance/watermark/detect', files: { audio: 'tone.wav' }, ok: 200 },
  getComplianceTerms: { method: 'GET', path: '/api/compliance/terms', ok: 200 },
  acceptComplianceTerms: { method: 'POST', path: '/api/compliance/terms/accept', body: { version: '2026-11-01' }, ok: 201 },
  createAbuseReport: { method: 'POST', path: '/api/compliance/abuse/report', body: { category: 'other', description: 'Matrix test report.' }, ok: 201 },
  listAbuseReports: { method: 'GET', path: '/api/compliance/abuse/reports', ok: 200 },
  getAbuseReport: { method: 'GET', path: '/api/compliance/abuse/reports/REPORTID', ok: 200 },
  updateAbuseReportStatus: { method: 'POST', path: '/api/compliance/abuse/reports/REPORTID/status', body: { status: 'reviewing' }, ok: 200 },
  getHubTokenStatus: { method: 'GET', path: '/api/hub/token/status', ok: 200 },
  setHubToken: { method: 'POST', path: '/api/hub/token', body: { token: 'hf_matrixtoken0123456789', validate: false }, ok: 200 },
  deleteHubToken: { method: 'DELETE', path: '/api/hub/token', ok: 200 },
  validateHubToken: { method: 'POST', path: '/api/hub/token/validate', body: { token: 'hf_matrixtoken0123456789', timeout_sec: 1 }, ok: 200 },
  // The valid key's lexicon is replaced, its entry replaced and deleted; each studio call is a fresh guest with an empty lexicon.
  getLexicon: { method: 'GET', path: '/api/lexicon', ok: 200 },
  replaceLexicon: { method: 'PUT', path: '/api/lexicon', body: { entries: [{ word: 'matrix', ipa: 'mˈeɪtɹɪks' }] }, ok: 200 },
  putLexiconEntry: { method: 'PUT', path: '/api/lexicon/entries/matrix', body: { respelling: 'may-triks' }, ok: 200, okFor: { valid_studio: 201 } },
  deleteLexiconEntry: { method: 'DELETE', path: '/api/lexicon/entries/matrix', ok: 200, okFor: { valid_studio: 404 } },
  getStudioPresetLexicon: { method: 'GET', path: '/api/studio/presets/PRESETID/lexicon', ok: 404 },
  replaceStudioPresetLexicon: { method: 'PUT', path: '/api/studio/presets/PRESETID/lexicon', body: { entries: [] }, ok: 404 },
  putStudioPresetLexiconEntry: { method: 'PUT', path: '/api/studio/presets/PRESETID/lexicon/entries/matrix', body: { ipa: 'ə' }, ok: 404 },
  deleteStudioPresetLexiconEntry: { method: 'DELETE', path: '/api/studio/presets/PRESETID/lexicon/entries/matrix', ok: 404 },
};

type Credential = 'none' | 'wrong_key' | 'valid_key' | 'disabled_key' | 'studio_token' | 'valid_studio' | 'admin_key' | 'wrong_admin_key';
const CREDENTIALS: Credential[] = ['none', 'wrong_key', 'valid_key', 'disabled_key', 'studio_token', 'valid_studio', 'admin_key', 'wrong_admin_key'];

describe('identity', () => {
  let p: TestPlatform;
  let disabledKey: string;
  let spareKeyId: string;
  before(async () => {
    setLogSink((line) => logLines.push(line));
    p = await startPlatform({ node: { engines: ['flite'], defaultVoice: 'flite:slt' }, facade: { defaultVoice: 'flite:slt', challengeDifficulty: 6 } });
    const disabled = await p.createKey({ name: 'disabled' });
    disabledKey = disabled.apiKey;
    const off = await fetch(`${p.url}/api/auth/keys/${disabled.keyId}`, { method: 'PATCH', headers: { 'content-type': 'application/json', 'x-admin-key': p.adminKey }, body: JSON.stringify({ disabled: true }) });
    assert.equal(off.status, 200);
    spareKeyId = (await p.createKey({ name: 'spare' })).keyId;
  });
  after(async () => {
    await p.stop();
  });

  function headersFor(c: Credential, studioToken: string): Record<string, string> {
    switch (c) {
      case 'valid_studio': return { 'x-studio-token': studioToken };
      case 'none': return {};
      case 'wrong_key': return { 'x-api-key': 'tts_0123456789abcdef_notarealsecretnotarealsecretnotarealsec' };
      case 'valid_key': return { 'x-api-key': p.apiKey };
      case 'disabled_key': return { 'x-api-key': disabledKey };
      case 'studio_token': return { 'x-studio-token': 'studio-session-token' };
      case 'admin_key': return { 'x-admin-key': p.adminKey };
      case 'wrong_admin_key': return { 'x-admin-key': 'not-the-admin-key-but-long-enough' };
    }
  }

  /** The documented status for a credential under an operation's security. */
  function expected(security: unknown, studioRole: string | undefined, c: Credential, ok: number): { status: number; code?: string } {
    const schemes = new Set<string>(Array.isArray(security) ? security.flatMap((r: object) => Object.keys(r)) : []);
    const anonymous = Array.isArray(security) && security.some((r: object) => Object.keys(r).length === 0);
    const admin = schemes.has('AdminKey');
    const key = schemes.has('ApiKeyHeader');
    const challenge = schemes.has('ChallengeCookie');
    const studio = schemes.has('StudioToken');
    if (!admin && !key && !challenge && !studio) return { status: ok };
    if (admin && c === 'admin_key') return { status: ok };
    if (admin && c === 'wrong_admin_key') return { status: 401, code: 'AUTH_ADMIN_KEY_INVALID' };
    if (studio && c === 'studio_token') return { status: 401, code: 'STUDIO_SESSION_INVALID' };
    if (studio && c === 'valid_studio') return studioRole === 'admin' ? { status: 403, code: 'STUDIO_ADMIN_REQUIRED' } : { status: ok };
    // An optional credential that is given is checked: a wrong or disabled key is refused.
    if (anonymous && !(key && (c === 'wrong_key' || c === 'disabled_key'))) return { status: ok };
    if (studio && !admin && !key) return { status: 401, code: 'STUDIO_SESSION_MISSING' };
    if (key && c === 'valid_key') return { status: ok };
    if (key && c === 'wrong_key') return { status: 401, code: 'AUTH_KEY_INVALID' };
    if (key && c === 'disabled_key') return { status: 401, code: 'AUTH_KEY_DISABLED' };
    if (!key) return { status: 403, code: 'AUTH_ADMIN_REQUIRED' };
    return challenge ? { status: 401, code: 'AUTH_CHALLENGE_REQUIRED' } : { status: 401, code: 'AUTH_KEY_MISSING' };
  }

  test('credential matrix: every documented operation x every credential gives the documented status', async () => {
    const ops = operationsOf(loadOpenApiDocument());
    assert.deepEqual(ops.map((o) => o.operationId).sort(), Object.keys(SAMPLES).sort(), 'every operation has a sample request');
    // A completed job of the valid key, and a completed web job with its token, for the job operations.
    const apiJob = (await (await p.post('/api/jobs/tts', { text: 'Matrix job.', voice: 'flite:slt' })).json()) as { job_id: string };
    const web = (await (await fetch(`${p.url}/api/web/jobs/tts`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-api-key': p.apiKey }, body: new URLSearchParams({ text: 'Matrix web job.', voice: 'flite:slt' }).toString() })).json()) as { job_id: string; job_token: string };
    await waitFor(async () => {
      const a = (await (await p.get(`/api/jobs/${apiJob.job_id}`)).json()) as { status: string };
      const w = (await (await fetch(`${p.url}/api/web/jobs/${web.job_id}?token=${encodeURIComponent(web.job_token)}`)).json()) as { status: string };
      return a.status === 'completed' && w.status === 'completed';
    }, 20_000, 'matrix jobs to complete');
    // A stored reference clip of the valid key, for the reference operations.
    const refForm = new FormData();
    refForm.append('ref_audio', new Blob([toneWav()]), 'tone.wav');
    const ref = (await (await fetch(`${p.url}/api/reference/validate`, { method: 'POST', headers: { 'x-api-key': p.apiKey }, body: refForm })).json()) as { reference_id: string };
    const report = (await (await postJson(`${p.url}/api/compliance/abuse/report`, { category: 'other', description: 'A report for the matrix.' })).json()) as { report_id: string };
    // Studio resources of a registered user (not the matrix's guests), and two waiting VIP requests.
    const studio = p.facade.deps.access.studio;
    const owner = await studio.register({ username: 'matrixowner', password: 'matrix owner passphrase' }, undefined, 'matrix');
    const ownerPrincipal = await studio.authenticate(owner.token);
    const ownerPreset = await p.facade.deps.studio.presets.create(ownerPrincipal, { name: 'Matrix preset' });
    const ownerShare = await p.facade.deps.studio.presets.share(ownerPrincipal, ownerPreset.presetId, undefined);
    const vip1 = await p.facade.deps.studio.vip.request(ownerPrincipal, 'vip_month', 'Matrix one.', 'matrix');
    const other = await studio.register({ username: 'matrixother', password: 'matrix other passphrase' }, undefined, 'matrix');
    const vip2 = await p.facade.deps.studio.vip.request(await studio.authenticate(other.token), 'vip_month', 'Matrix two.', 'matrix');
    const studioFill = (path: string): string => path.replace('PRESETID', ownerPreset.presetId).replace('SHAREID', ownerShare.share.shareId).replace('SHARETOKEN', ownerShare.token)
      .replace('VIPID1', vip1.requestId).replace('VIPID2', vip2.requestId).replace('USERID', other.user.userId);
    const fill = (path: string): string => studioFill(path).replace('REPORTID', report.report_id).replace('REFID', ref.reference_id).replace('WEBJOBID', web.job_id).replace('WEBTOKEN', encodeURIComponent(web.job_token)).replace('JOBID', apiJob.job_id);
    const failures: string[] = [];
    for (const op of ops) {
      const sample = SAMPLES[op.operationId]!;
      for (const c of CREDENTIALS) {
        const path = fill(sample.path.replace('KEYID', spareKeyId));
        // Every studio call gets a fresh guest session (logout and account deletion end theirs).
        const headers: Record<string, string> = { ...headersFor(c, c === 'valid_studio' ? (await studio.guest('matrix')).token : '') };
        let body: string | FormData | undefined;
        if (sample.files !== undefined) {
          body = new FormData();
          for (const [field, value] of Object.entries(sample.form ?? {})) body.append(field, value);
          for (const [field, name] of Object.entries(sample.files)) body.append(field, new Blob([toneWav()]), name);
        } else if (sample.body !== undefined) {
          headers['content-type'] = 'application/json';
          body = JSON.stringify(sample.body);
        } else if (sample.form !== undefined) {
          headers['content-type'] = 'application/x-www-form-urlencoded';
          body = new URLSearchParams(sample.form).toString();
        }
        const res = await fetch(`${p.url}${path}`, { method: sample.method, headers, body });
        const want = expected(op.security, op.studioRole, c, sample.okFor?.[c] ?? sample.ok);
        const text = await res.text();
        if (res.status !== want.status) failures.push(`${op.operationId} with ${c}: ${res.status} (want ${want.status}) ${text.slice(0, 120)}`);
        else if (want.code && !(text.includes(`"${want.code}"`))) failures.push(`${op.operationId} with ${c}: code ${text.slice(0, 120)} (want ${want.code})`);
      }
    }
    assert.deepEqual(failures, []);
  });

  test('an OpenAI client can authenticate with Authorization: Bearer', async () => {
    const ok = await fetch(`${p.url}/v1/audio/speech`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${p.apiKey}` }, body: JSON.stringify({ model: 'tts-1', input: 'Hi.', voice: 'alloy' }) });
    assert.equal(ok.status, 200);
    const bad = await fetch(`${p.url}/v1/audio/speech`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer nope' }, body: JSON.stringify({ model: 'tts-1', input: 'Hi.', voice: 'alloy' }) });
    assert.equal(bad.status, 401);
    const body = (await bad.json()) as { error: { type: string; code: string; platform_code: string } };
    assert.deepEqual([body.error.type, body.error.code, body.error.platform_code], ['authentication_error', 'invalid_api_key', 'AUTH_KEY_INVALID']);
  });

  test('API keys: secret shown once, stored only as a hash, never listed; disable and re-enable', async () => {
    const res = await postJson(`${p.url}/api/auth/keys`, { name: 'lifecycle', tier: 'free' }, { 'x-admin-key': p.adminKey });
    assert.equal(res.status, 201);
    const created = (await res.json()) as { key_id: string; api_key: string; prefix: string; tier: string };
    assert.match(created.api_key, /^tts_[a-z0-9]{16}_[A-Za-z0-9]{40}$/);
    assert.ok(created.api_key.startsWith(created.prefix));
    assert.equal(created.tier, 'free');
    const list = await (await fetch(`${p.url}/api/auth/keys`, { headers: { 'x-admin-key': p.adminKey } })).text();
    assert.ok(list.includes(created.key_id));
    assert.ok(!list.includes(created.api_key.slice(-40)), 'list never shows a secret');
    const rows = await p.facade.deps.access.database.query<Record<string, unknown>>('SELECT * FROM api_keys WHERE key_id = $1', [created.key_id]);
    assert.ok(!JSON.stringify(rows).includes(created.api_key.slice(-40)), 'the database holds no secret');
    const use = (key: string) => postJson(`${p.url}/api/tts`, { text: 'Hello.', voice: 'flite:slt' }, { 'x-api-key': key });
    assert.equal((await use(created.api_key)).status, 200);
    const patch = (body: unknown) => fetch(`${p.url}/api/auth/keys/${created.key_id}`, { method: 'PATCH', headers: { 'content-type': 'application/json', 'x-admin-key': p.adminKey }, body: JSON.stringify(body) });
    assert.equal((await patch({ disabled: true })).status, 200);
    const refused = await use(created.api_key);
    assert.equal(refused.status, 401);
    assert.equal(((await refused.json()) as { code: string }).code, 'AUTH_KEY_DISABLED');
    assert.equal((await patch({ disabled: false, tier: 'enterprise' })).status, 200);
    assert.equal((await use(created.api_key)).status, 200);
    const unknownTier = await patch({ tier: 'platinum' });
    assert.equal(unknownTier.status, 422);
    assert.equal(((await unknownTier.json()) as { code: string }).code, 'AUTH_TIER_UNKNOWN');
    const missing = await fetch(`${p.url}/api/auth/keys/nosuchkey000000`, { method: 'PATCH', headers: { 'content-type': 'application/json', 'x-admin-key': p.adminKey }, body: JSON.stringify({ name: 'x' }) });
    assert.equal(missing.status, 404);
    const noName = await postJson(`${p.url}/api/auth/keys`, { tier: 'pro' }, { 'x-admin-key': p.adminKey });
    assert.equal(noName.status, 422);
  });

  test('free tier: text over its maximum length is refused with TTS_TEXT_TOO_LONG', async () => {
    const { apiKey } = await p.createKey({ name: 'free', tier: 'free' });
    const res = await postJson(`${p.url}/api/tts`, { text: 'a '.repeat(600), voice: 'flite:slt' }, { 'x-api-key': apiKey });
    assert.equal(res.status, 422);
    const body = (await res.json()) as { code: string; detail: { loc: string[] }[] };
    assert.equal(body.code, 'TTS_TEXT_TOO_LONG');
    assert.deepEqual(body.detail[0]?.loc, ['body', 'text']);
  });

  test('challenge: solve, get an HttpOnly pass, synthesize; replay, forgery and another client are refused', async () => {
    const ua = { 'user-agent': 'challenge-test-browser/1.0' };
    const issued = (await (await fetch(`${p.url}/api/auth/challenge`, { headers: ua })).json()) as { challenge: string; difficulty_bits: number };
    const solution = solveChallenge(issued.challenge, issued.difficulty_bits);
    const form = new URLSearchParams({ challenge: issued.challenge, solution }).toString();
    const redeem = () => fetch(`${p.url}/api/auth/challenge`, { method: 'POST', headers: { ...ua, 'content-type': 'application/x-www-form-urlencoded' }, body: form });
    const ok = await redeem();
    assert.equal(ok.status, 200);
    const setCookie = ok.headers.get('set-cookie') ?? '';
    assert.match(setCookie, /^tts_challenge=[^;]+; Max-Age=\d+; Path=\/; HttpOnly; SameSite=Lax/);
    const cookie = setCookie.split(';')[0]!;
    const replay = await redeem();
    assert.equal(replay.status, 403);
    assert.equal(((await replay.json()) as { code: string }).code, 'AUTH_CHALLENGE_REPLAYED');
    const wrong = await fetch(`${p.url}/api/auth/challenge`, { method: 'POST', headers: { ...ua, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ challenge: issued.challenge.replace(/.$/, 'x'), solution }).toString() });
    assert.equal(wrong.status, 403);

    const speak = (headers: Record<string, string>) => postJson(`${p.url}/api/tts`, { text: 'Hello, human.', voice: 'flite:slt' }, headers);
    const spoken = await speak({ ...ua, cookie });
    assert.equal(spoken.status, 200);
    assert.equal(spoken.headers.get('ratelimit-limit'), '30');
    const forged = await speak({ ...ua, cookie: `${cookie.slice(0, -3)}abc` });
    assert.equal(forged.status, 401);
    assert.equal(((await forged.json()) as { code: string }).code, 'AUTH_CHALLENGE_COOKIE_INVALID');
    const otherClient = await speak({ 'user-agent': 'some-other-client', cookie });
    assert.equal(otherClient.status, 401);
  });

  test('challenge profile: exactly 30 calls a minute, then 429 with Retry-After and RateLimit headers', async () => {
    const ua = { 'user-agent': 'rate-test/1.0' };
    const issued = (await (await fetch(`${p.url}/api/auth/challenge`, { headers: ua })).json()) as { challenge: string; difficulty_bits: number };
    const solution = solveChallenge(issued.challenge, issued.difficulty_bits);
    const redeemed = await fetch(`${p.url}/api/auth/challenge`, { method: 'POST', headers: { ...ua, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ challenge: issued.challenge, solution }).toString() });
    const cookie = (redeemed.headers.get('set-cookie') ?? '').split(';')[0]!;
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) statuses.push((await postJson(`${p.url}/api/tts`, { text: 'Go.', voice: 'flite:slt' }, { ...ua, cookie })).status);
    assert.deepEqual([...new Set(statuses)], [200]);
    const over = await postJson(`${p.url}/api/tts`, { text: 'Go.', voice: 'flite:slt' }, { ...ua, cookie });
    assert.equal(over.status, 429);
    assert.ok(Number(over.headers.get('retry-after')) >= 1);
    assert.equal(over.headers.get('ratelimit-limit'), '30');
    assert.equal(over.headers.get('ratelimit-remaining'), '0');
    assert.equal(((await over.json()) as { code: string }).code, 'RATE_LIMITED');
  });

  test('api_key profile: exactly 360 calls a minute per key', async () => {
    const { apiKey } = await p.createKey({ name: 'rate' });
    const statuses = new Map<number, number>();
    for (let batch = 0; batch < 12; batch++) {
      const results = await Promise.all(Array.from({ length: 30 }, () => fetch(`${p.url}/api/usage/summary`, { headers: { 'x-api-key': apiKey } }).then(async (r) => (await r.arrayBuffer(), r.status))));
      for (const s of results) statuses.set(s, (statuses.get(s) ?? 0) + 1);
    }
    assert.equal(statuses.get(200), 360);
    const over = await fetch(`${p.url}/api/usage/summary`, { headers: { 'x-api-key': apiKey } });
    assert.equal(over.status, 429);
    assert.equal(over.headers.get('ratelimit-limit'), '360');
    // another key is not affected
    assert.equal((await fetch(`${p.url}/api/usage/summary`, { headers: { 'x-api-key': p.apiKey } })).status, 200);
  });

  test('quota stages: ok, warning, soft limit within grace, then hard block', async () => {
    const { apiKey } = await p.createKey({ name: 'quota', tier: 'pro', daily_char_quota: 100 });
    const speak = async (chars: number) => {
      const res = await postJson(`${p.url}/api/tts`, { text: 'a'.repeat(chars - 1) + '.', voice: 'flite:slt' }, { 'x-api-key': apiKey });
      const body = Buffer.from(await res.arrayBuffer()).toString('utf8');
      await p.facade.deps.metering.drain();
      return { status: res.status, headers: res.headers, body };
    };
    const first = await speak(60);
    assert.deepEqual([first.status, first.headers.get('x-quota-stage')], [200, 'ok']);
    const second = await speak(30);
    assert.deepEqual([second.status, second.headers.get('x-quota-stage')], [200, 'warning']);
    const third = await speak(12);
    assert.deepEqual([third.status, third.headers.get('x-quota-stage')], [200, 'soft_limit']);
    const fourth = await speak(10);
    assert.equal(fourth.status, 429);
    assert.equal(fourth.headers.get('x-quota-stage'), 'hard_block');
    assert.equal((JSON.parse(fourth.body) as { code: string }).code, 'QUOTA_EXCEEDED');
  });

  test('usage summary, cost dashboard and consent audit record what happened', async () => {
    const { apiKey, keyId } = await p.createKey({ name: 'reports', tier: 'pro' });
    for (const text of ['One two three.', 'Four five.']) await (await postJson(`${p.url}/api/tts`, { text, voice: 'flite:slt', consent_confirmed: true }, { 'x-api-key': apiKey })).arrayBuffer();
    await (await postJson(`${p.url}/api/tts`, { text: 'Nobody.', voice: 'flite:nobody' }, { 'x-api-key': apiKey })).arrayBuffer();
    await p.facade.deps.metering.drain();
    const summary = (await (await fetch(`${p.url}/api/usage/summary?key_id=${keyId}`, { headers: { 'x-admin-key': p.adminKey } })).json()) as { totals: { requests: number; ok_requests: number; failed_requests: number; characters: number; audio_seconds: number } };
    assert.equal(summary.totals.requests, 3);
    assert.equal(summary.totals.ok_requests, 2);
    assert.equal(summary.totals.failed_requests, 1);
    assert.ok(summary.totals.audio_seconds > 1);
    const own = (await (await fetch(`${p.url}/api/usage/summary`, { headers: { 'x-api-key': apiKey } })).json()) as { rows: { key_id: string }[] };
    assert.ok(own.rows.length > 0 && own.rows.every((r) => r.key_id === keyId), 'a key sees only its own usage');
    const others = await fetch(`${p.url}/api/usage/summary?key_id=${spareKeyId}`, { headers: { 'x-api-key': apiKey } });
    assert.equal(others.status, 403);
    const cost = (await (await fetch(`${p.url}/api/usage/cost-dashboard?key_id=${keyId}`, { headers: { 'x-admin-key': p.adminKey } })).json()) as { rows: { key_id: string; tier: string; characters: number; cost_usd: number; quota_stage: string }[] };
    const row = cost.rows.find((r) => r.key_id === keyId);
    assert.ok(row);
    assert.equal(row.tier, 'pro');
    assert.equal(row.characters, 'One two three.'.length + 'Four five.'.length);
    assert.equal(row.quota_stage, 'ok');
    const consent = (await (await fetch(`${p.url}/api/compliance/consent-audit?only_failures=true`, { headers: { 'x-admin-key': p.adminKey } })).json()) as { records: { key_id: string; outcome: string; error_code: string }[] };
    assert.ok(consent.records.some((r) => r.key_id === keyId && r.outcome === 'error' && r.error_code === 'TTS_VOICE_NOT_FOUND'));
    assert.ok(consent.records.every((r) => r.outcome !== 'ok'));
    const all = (await (await fetch(`${p.url}/api/compliance/consent-audit`, { headers: { 'x-admin-key': p.adminKey } })).json()) as { records: { key_id: string; consent_confirmed: boolean | null; outcome: string }[] };
    assert.ok(all.records.some((r) => r.key_id === keyId && r.consent_confirmed === true && r.outcome === 'ok'));
  });

  test('report query bounds and dates: 422 with stable codes', async () => {
    const admin = { 'x-admin-key': p.adminKey };
    const cases: [string, string][] = [
      ['/api/usage/summary?limit=0', 'VALIDATION_FAILED'],
      ['/api/usage/summary?limit=5001', 'VALIDATION_FAILED'],
      ['/api/usage/cost-dashboard?day_from=2026-02-30', 'USAGE_DATE_INVALID'],
      ['/api/usage/summary?day_from=yesterday', 'USAGE_DATE_INVALID'],
      ['/api/usage/summary?day_from=2026-05-02&day_to=2026-05-01', 'USAGE_DATE_RANGE_INVALID'],
      ['/api/usage/job-access-audit?only_denied=maybe', 'VALIDATION_FAILED'],
      ['/api/compliance/consent-audit?limit=abc', 'VALIDATION_FAILED'],
    ];
    for (const [path, code] of cases) {
      const res = await fetch(`${p.url}${path}`, { headers: admin });
      assert.equal(res.status, 422, path);
      assert.equal(((await res.json()) as { code: string }).code, code, path);
    }
    assert.equal((await fetch(`${p.url}/api/usage/summary?limit=5000&day_from=2026-01-01&day_to=2026-12-31`, { headers: admin })).status, 200);
  });

  test('oversize and malformed credential headers are refused cleanly', async () => {
    const huge = await postJson(`${p.url}/api/tts`, { text: 'Hi.' }, { 'x-api-key': 'x'.repeat(4096) });
    assert.equal(huge.status, 401);
    const odd = await postJson(`${p.url}/api/tts`, { text: 'Hi.' }, { 'x-api-key': 'tts_\u00e9\u00e9_??' });
    assert.equal(odd.status, 401);
    const badCookie = await postJson(`${p.url}/api/tts`, { text: 'Hi.' }, { cookie: 'tts_challenge=' + 'a'.repeat(5000) });
    assert.equal(badCookie.status, 401);
  });

  test('no credential, hash or secret appears in a log line or an error body', async () => {
    await p.facade.deps.metering.drain();
    const secrets = [p.apiKey, p.apiKey.slice(-40), disabledKey.slice(-40), p.adminKey];
    const leaks = logLines.filter((line) => secrets.some((s) => line.includes(s)));
    assert.deepEqual(leaks, []);
    assert.ok(logLines.length > 0, 'the test did capture log lines');
  });
});
