/**
 * The authorization matrix generated from the OpenAPI document (issue 16 item 5): every documented
 * operation x every kind of credential gives the status that the operation's `security` (and
 * `x-studio-role`) and the owner of the resource it names call for. The rules sit in one table,
 * RULES, one row per kind of documented security and one column per credential; OWNED says which
 * operations address a resource of one owner and what a caller who may call the operation but does
 * not own the resource gets. Then owner scoping of lists: jobs, reference clips, presets, shares,
 * usage and the job-access audit.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ERROR_CATALOGUE, type ErrorCode } from '@tts/common';
import { JobTokens, SecretRepository, loadOpenApiDocument, operationsOf, type DocumentedOperation } from '@tts/facade/testing';
import { startPlatform, waitFor, type TestPlatform } from './support/platform.js';
import { toneWav } from './support/audio.js';

/** The kinds of credential every operation is called with. */
const CREDENTIALS = [
  'none', 'wrong_key', 'wrong_admin_key', 'disabled_key', 'owner_key', 'other_key', 'studio_user', 'studio_other', 'studio_admin', 'admin_key',
  'job_token', 'other_job_token', 'expired_job_token', 'xi_key', 'xi_wrong_key',
] as const;
type Credential = (typeof CREDENTIALS)[number];

/** The kinds of documented security: which schemes an operation lists. */
type Access =
  | 'public' | 'admin' | 'key' | 'key_or_xi' | 'key_or_pass' | 'key_pass_or_studio' | 'key_or_studio' | 'key_or_admin' | 'key_pass_or_admin'
  | 'studio' | 'studio_optional' | 'optional_key_or_studio' | 'studio_admin' | 'job_token';

/** `ok`: the operation's own answer (its sample's status, or OWNED's for a caller who does not own the resource); else the refusal's code, answered with the catalogue's status. */
type Cell = 'ok' | ErrorCode;

/**
 * The expected answer of each credential under each kind of documented security: `otherwise` for
 * every credential the row does not name. Default auth mode `api_key_or_challenge`, where an
 * operation listing ChallengeCookie asks a caller without a key for the anti-bot pass; a job token
 * is sent as X-Job-Token; a studio administrator is a studio user with the admin role; `xi_*` send a
 * key in ElevenLabs' `xi-api-key`, which only the operations listing XiApiKey read (elsewhere it is
 * no credential at all).
 */
const RULES: Readonly<Record<Access, { readonly otherwise: Cell } & Partial<Record<Credential, Cell>>>> = {
  public: { otherwise: 'ok' },
  studio_optional: { otherwise: 'ok' },
  // Public, but a credential that is sent is checked (GET /api/web/config answers the caller's own limits).
  optional_key_or_studio: { otherwise: 'ok', wrong_key: 'AUTH_KEY_INVALID', disabled_key: 'AUTH_KEY_DISABLED' },
  admin: { otherwise: 'AUTH_ADMIN_REQUIRED', wrong_admin_key: 'AUTH_ADMIN_KEY_INVALID', admin_key: 'ok' },
  key: { otherwise: 'AUTH_KEY_MISSING', wrong_key: 'AUTH_KEY_INVALID', disabled_key: 'AUTH_KEY_DISABLED', owner_key: 'ok', other_key: 'ok' },
  key_or_xi: { otherwise: 'AUTH_KEY_MISSING', wrong_key: 'AUTH_KEY_INVALID', disabled_key: 'AUTH_KEY_DISABLED', owner_key: 'ok', other_key: 'ok', xi_key: 'ok', xi_wrong_key: 'AUTH_KEY_INVALID' },
  key_or_pass: { otherwise: 'AUTH_CHALLENGE_REQUIRED', wrong_key: 'AUTH_KEY_INVALID', disabled_key: 'AUTH_KEY_DISABLED', owner_key: 'ok', other_key: 'ok' },
  key_pass_or_studio: { otherwise: 'AUTH_CHALLENGE_REQUIRED', wrong_key: 'AUTH_KEY_INVALID', disabled_key: 'AUTH_KEY_DISABLED', owner_key: 'ok', other_key: 'ok', studio_user: 'ok', studio_other: 'ok', studio_admin: 'ok' },
  key_or_studio: { otherwise: 'AUTH_KEY_MISSING', wrong_key: 'AUTH_KEY_INVALID', disabled_key: 'AUTH_KEY_DISABLED', owner_key: 'ok', other_key: 'ok', studio_user: 'ok', studio_other: 'ok', studio_admin: 'ok' },
  key_or_admin: { otherwise: 'AUTH_KEY_MISSING', wrong_key: 'AUTH_KEY_INVALID', disabled_key: 'AUTH_KEY_DISABLED', owner_key: 'ok', other_key: 'ok', wrong_admin_key: 'AUTH_ADMIN_KEY_INVALID', admin_key: 'ok' },
  key_pass_or_admin: { otherwise: 'AUTH_CHALLENGE_REQUIRED', wrong_key: 'AUTH_KEY_INVALID', disabled_key: 'AUTH_KEY_DISABLED', owner_key: 'ok', other_key: 'ok', wrong_admin_key: 'AUTH_ADMIN_KEY_INVALID', admin_key: 'ok' },
  studio: { otherwise: 'STUDIO_SESSION_MISSING', studio_user: 'ok', studio_other: 'ok', studio_admin: 'ok' },
  studio_admin: { otherwise: 'AUTH_ADMIN_REQUIRED', wrong_admin_key: 'AUTH_ADMIN_KEY_INVALID', studio_user: 'STUDIO_ADMIN_REQUIRED', studio_other: 'STUDIO_ADMIN_REQUIRED', studio_admin: 'ok', admin_key: 'ok' },
  job_token: { otherwise: 'JOB_TOKEN_MISSING', job_token: 'ok', other_job_token: 'JOB_TOKEN_INVALID', expired_job_token: 'JOB_TOKEN_EXPIRED' },
};

/**
 * Operations that address one owner's resource: who owns it in this test, and what a caller who
 * passes access control but does not own it gets (not found: no one learns it exists).
 */
const OWNED: Readonly<Record<string, { owners: readonly Credential[]; notOwner: Cell }>> = {
  getJob: { owners: ['owner_key'], notOwner: 'JOB_NOT_FOUND' },
  getJobAudio: { owners: ['owner_key'], notOwner: 'JOB_NOT_FOUND' },
  getJobCaptions: { owners: ['owner_key'], notOwner: 'JOB_NOT_FOUND' },
  getReference: { owners: ['owner_key'], notOwner: 'REFERENCE_NOT_FOUND' },
  deleteReference: { owners: ['owner_key'], notOwner: 'REFERENCE_NOT_FOUND' },
  updateStudioPreset: { owners: ['studio_user'], notOwner: 'STUDIO_PRESET_NOT_FOUND' },
  deleteStudioPreset: { owners: ['studio_user'], notOwner: 'STUDIO_PRESET_NOT_FOUND' },
  createStudioShare: { owners: ['studio_user'], notOwner: 'STUDIO_PRESET_NOT_FOUND' },
  revokeStudioShare: { owners: ['studio_user'], notOwner: 'STUDIO_SHARE_NOT_FOUND' },
  getStudioPresetLexicon: { owners: ['studio_user'], notOwner: 'STUDIO_PRESET_NOT_FOUND' },
  replaceStudioPresetLexicon: { owners: ['studio_user'], notOwner: 'STUDIO_PRESET_NOT_FOUND' },
  putStudioPresetLexiconEntry: { owners: ['studio_user'], notOwner: 'STUDIO_PRESET_NOT_FOUND' },
  deleteStudioPresetLexiconEntry: { owners: ['studio_user'], notOwner: 'STUDIO_PRESET_NOT_FOUND' },
};

/** The kind of an operation's documented security. */
function accessOf(op: DocumentedOperation): Access {
  const security = (Array.isArray(op.security) ? op.security : []) as Record<string, unknown>[];
  const s = new Set(security.flatMap((r) => Object.keys(r)));
  const anonymous = security.some((r) => Object.keys(r).length === 0);
  const key = s.has('ApiKeyHeader') || s.has('BearerAuth');
  const pass = s.has('ChallengeCookie');
  const admin = s.has('AdminKey');
  const studio = s.has('StudioToken');
  if (s.has('JobTokenHeader') || s.has('JobTokenQuery')) return 'job_token';
  if (s.size === 0) return 'public';
  if (studio && anonymous) return key ? 'optional_key_or_studio' : 'studio_optional';
  if (studio && admin) {
    assert.equal(op.studioRole, 'admin', `${op.operationId}: a studio operation with the administrator key asks for the studio admin role`);
    return 'studio_admin';
  }
  if (studio && !key) return 'studio';
  if (studio) return pass ? 'key_pass_or_studio' : 'key_or_studio';
  if (admin && !key) return 'admin';
  if (admin) return pass ? 'key_pass_or_admin' : 'key_or_admin';
  if (s.has('XiApiKey')) return 'key_or_xi';
  return pass ? 'key_or_pass' : 'key';
}

/** One request per operation; `{placeholders}` are filled with the owner's resources. */
interface Sample {
  readonly path: string;
  readonly body?: unknown;
  readonly form?: Record<string, string>;
  readonly files?: Record<string, Buffer>;
  /** Status of the operation's own answer (default: its first documented 2xx). */
  readonly ok?: number;
  /** ... for some credentials (what the operation answers that caller when access control lets it through). */
  readonly okFor?: Partial<Record<Credential, number>>;
}

const WAV = toneWav(4);

/**
 * Requests that differ from "the documented path, no body". Other operations get their documented
 * path with placeholders filled.
 */
const SAMPLES: Readonly<Record<string, Sample>> = {
  ttsSynthesize: { path: '/api/tts', body: { text: 'Hi.', voice: 'flite:slt' } },
  createSpeech: { path: '/v1/audio/speech', body: { model: 'tts-1', input: 'Hi.', voice: 'flite:slt', response_format: 'wav' } },
  // A WebSocket operation called without the upgrade: past access control, the handler's 426.
  streamSpeech: { path: '/v1/audio/speech/stream', ok: 426 },
  elevenLabsConvert: { path: '/v1/text-to-speech/flite:slt?output_format=pcm_16000', body: { text: 'Hi.' } },
  elevenLabsStream: { path: '/v1/text-to-speech/flite:slt/stream?output_format=mp3_22050_32', body: { text: 'Hi.' } },
  elevenLabsConvertWithTimestamps: { path: '/v1/text-to-speech/alloy/with-timestamps?output_format=alaw_8000', body: { text: 'Hi.' } },
  elevenLabsStreamWithTimestamps: { path: '/v1/text-to-speech/flite:slt/stream/with-timestamps?output_format=ulaw_8000', body: { text: 'Hi.', model_id: 'eleven_flash_v2_5' } },
  // WebSocket operations: a plain GET past access control is the handler's 426 (the upgrade runs
  // the same access control before its handshake: tests/elevenlabs-socket.test.ts).
  elevenLabsStreamInput: { path: '/v1/text-to-speech/flite:slt/stream-input', ok: 426 },
  elevenLabsMultiStreamInput: { path: '/v1/text-to-speech/flite:slt/multi-stream-input?output_format=pcm_16000', ok: 426 },
  retrieveModel: { path: '/v1/models/tts-1' },
  classifyError: { path: '/api/errors/classify', body: { http_status: 503 } },
  solveAuthChallenge: { path: '/api/auth/challenge', form: { challenge: 'x', solution: 'y' }, ok: 403 },
  createApiKey: { path: '/api/auth/keys', body: { name: 'matrix' } },
  updateApiKey: { path: '/api/auth/keys/{key_id}', body: { name: 'renamed' } },
  setHubToken: { path: '/api/hub/token', body: { token: 'hf_matrixtoken0123456789', validate: false } },
  validateHubToken: { path: '/api/hub/token/validate', body: { token: 'hf_matrixtoken0123456789', timeout_sec: 1 } },
  streamLogs: { path: '/api/logs/stream?tail=1&follow=false' },
  acceptComplianceTerms: { path: '/api/compliance/terms/accept', body: { version: '2026-11-01' }, ok: 201 },
  createAbuseReport: { path: '/api/compliance/abuse/report', body: { category: 'other', description: 'Matrix test report.' } },
  // The studio administrator moves the report to reviewing first; the administrator key then asks the same move.
  updateAbuseReportStatus: { path: '/api/compliance/abuse/reports/{report_id}/status', body: { status: 'reviewing' }, okFor: { admin_key: 409 } },
  submitJob: { path: '/api/jobs/tts', body: { text: 'Hi.', voice: 'flite:slt' } },
  getJob: { path: '/api/jobs/{job_id}' },
  getJobAudio: { path: '/api/jobs/{job_id}/audio' },
  getWebJob: { path: '/api/web/jobs/{web_job_id}' },
  listWebJobEvents: { path: '/api/web/jobs/{web_job_id}/events' },
  getWebJobAudio: { path: '/api/web/jobs/{web_job_id}/audio' },
  getJobCaptions: { path: '/api/jobs/{job_id}/captions?format=srt' },
  getWebJobCaptions: { path: '/api/web/jobs/{web_job_id}/captions?format=vtt' },
  submitWebJob: { path: '/api/web/jobs/tts', form: { text: 'Hi.', voice: 'flite:slt' } },
  validateReference: { path: '/api/reference/validate', files: { ref_audio: WAV } },
  // Transcription needs the speech recognition model; without it the node answers 503.
  transcribeReference: { path: '/api/reference/transcribe', files: { ref_audio: WAV }, ok: -1 },
  detectWatermark: { path: '/api/provenance/watermark/detect', files: { audio: WAV } },
  // Registering needs a fresh name; a body without one is the handler's 422, past access control.
  // Without a session a body without a name is the handler's 422; a registered user's session is refused with 409.
  registerStudioUser: { path: '/api/studio/auth/register', body: { password: 'matrix passphrase 4711' }, ok: 422, okFor: { studio_user: 409, studio_other: 409, studio_admin: 409 } },
  loginStudio: { path: '/api/studio/auth/login', body: { login: '', password: 'x' }, ok: 422 },
  // The wrong current password: the handler's 403, past access control, and nothing changes.
  changeStudioPassword: { path: '/api/studio/auth/password', body: { current_password: 'not the password', new_password: 'matrix passphrase 4711' }, ok: 403 },
  // A wrong password: the account stays.
  deleteStudioAccount: { path: '/api/studio/auth/me', body: { password: 'not the password' }, ok: 403 },
  submitStudioVipSlip: { path: '/api/studio/vip/slip', files: { slip: WAV }, form: { plan_id: 'vip_month' }, ok: -1 },
  requestStudioVip: { path: '/api/studio/vip/request', body: { plan_id: 'vip_month', message: 'Matrix.' }, ok: -1 },
  createStudioPreset: { path: '/api/studio/presets', body: { name: 'Matrix' } },
  updateStudioPreset: { path: '/api/studio/presets/{preset_id}', body: { name: 'Renamed' } },
  createStudioShare: { path: '/api/studio/presets/{preset_id}/share', body: {} },
  forkStudioShare: { path: '/api/studio/share/{share_token}/fork', body: {} },
  updateStudioUser: { path: '/api/studio/admin/users/{user_id}', body: { role: 'user' } },
  // Every key and studio user has a lexicon of its own: replaced, then the entry replaced (200), then deleted.
  replaceLexicon: { path: '/api/lexicon', body: { entries: [{ word: 'matrix', ipa: 'mˈeɪtɹɪks' }] } },
  putLexiconEntry: { path: '/api/lexicon/entries/matrix', body: { respelling: 'may-triks' }, ok: 200 },
  deleteLexiconEntry: { path: '/api/lexicon/entries/matrix' },
  replaceStudioPresetLexicon: { path: '/api/studio/presets/{preset_id}/lexicon', body: { entries: [{ word: 'matrix', ipa: 'mˈeɪtɹɪks' }] } },
  putStudioPresetLexiconEntry: { path: '/api/studio/presets/{preset_id}/lexicon/entries/matrix', body: { respelling: 'may-triks' }, ok: 200 },
  deleteStudioPresetLexiconEntry: { path: '/api/studio/presets/{preset_id}/lexicon/entries/matrix' },
};

/** Operations that remove the owner's resources, in the order they run after all others. */
const LAST = ['revokeStudioShare', 'deleteStudioPreset', 'deleteReference'];

/** Operations after which the caller's studio session is gone. */
const SESSION_ENDING = new Set(['logoutStudio', 'deleteStudioAccount']);

describe('authorization matrix from the OpenAPI document', () => {
  let p: TestPlatform;
  const creds = {} as Record<'owner_key' | 'other_key' | 'disabled_key', { keyId: string; apiKey: string }>;
  const studioLogins = {} as Record<'studio_user' | 'studio_other' | 'studio_admin', { login: string; password: string; userId: string }>;
  const ids: Record<string, string> = {};
  const tokens = {} as Record<'job_token' | 'other_job_token' | 'expired_job_token', string>;

  async function web(apiKey: string, text: string): Promise<{ job_id: string; job_token: string }> {
    const res = await fetch(`${p.url}/api/web/jobs/tts`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-api-key': apiKey }, body: new URLSearchParams({ text, voice: 'flite:slt' }).toString() });
    assert.equal(res.status, 200);
    return (await res.json()) as { job_id: string; job_token: string };
  }

  before(async () => {
    p = await startPlatform({ node: { engines: ['flite'], defaultVoice: 'flite:slt' }, facade: { defaultVoice: 'flite:slt' } });
    creds.owner_key = await p.createKey({ name: 'owner' });
    creds.other_key = await p.createKey({ name: 'other' });
    creds.disabled_key = await p.createKey({ name: 'disabled' });
    const off = await fetch(`${p.url}/api/auth/keys/${creds.disabled_key.keyId}`, { method: 'PATCH', headers: { 'content-type': 'application/json', 'x-admin-key': p.adminKey }, body: JSON.stringify({ disabled: true }) });
    assert.equal(off.status, 200);
    const own = { 'x-api-key': creds.owner_key.apiKey };
    const job = (await (await p.post('/api/jobs/tts', { text: 'Matrix job.', voice: 'flite:slt' }, own)).json()) as { job_id: string };
    const webJob = await web(creds.owner_key.apiKey, 'Matrix web job.');
    const otherWebJob = await web(creds.other_key.apiKey, 'Another web job.');
    const expired = await JobTokens.open(new SecretRepository(p.facade.deps.access.database), -60);
    Object.assign(tokens, { job_token: webJob.job_token, other_job_token: otherWebJob.job_token, expired_job_token: expired.issue(webJob.job_id).token });
    const form = new FormData();
    form.append('ref_audio', new Blob([WAV]), 'tone.wav');
    const ref = await fetch(`${p.url}/api/reference/validate`, { method: 'POST', headers: own, body: form });
    assert.equal(ref.status, 200);
    const report = (await (await p.post('/api/compliance/abuse/report', { category: 'other', description: 'A report for the matrix.' }, {})).json()) as { report_id: string };
    const studio = p.facade.deps.access.studio;
    for (const [who, name] of [['studio_user', 'matrixowner'], ['studio_other', 'matrixother'], ['studio_admin', 'matrixadmin']] as const) {
      const password = `${who} passphrase 2718`;
      const s = await studio.register({ username: name, password }, undefined, 'matrix');
      studioLogins[who] = { login: name, password, userId: s.user.userId };
    }
    await studio.updateUser('admin', null, studioLogins.studio_admin.userId, { role: 'admin' }, 'matrix');
    const victim = await studio.register({ username: 'matrixvictim', password: 'victim passphrase 2718' }, undefined, 'matrix');
    const owner = await studio.authenticate((await studio.login('matrixowner', studioLogins.studio_user.password, '127.0.0.1', 'matrix')).token);
    const preset = await p.facade.deps.studio.presets.create(owner, { name: 'Matrix preset' });
    const share = await p.facade.deps.studio.presets.share(owner, preset.presetId, undefined);
    Object.assign(ids, {
      job_id: job.job_id, web_job_id: webJob.job_id, reference_id: ((await ref.json()) as { reference_id: string }).reference_id, report_id: report.report_id,
      preset_id: preset.presetId, share_id: share.share.shareId, share_token: share.token, user_id: victim.user.userId, key_id: creds.other_key.keyId, model: 'tts-1',
    });
    ids['vip_request_id'] = await freshVipRequest();
    await waitFor(async () => ((await (await p.get(`/api/jobs/${job.job_id}`, own)).json()) as { status: string }).status === 'completed', 20_000, 'the owner job');
    await waitFor(async () => ((await (await fetch(`${p.url}/api/web/jobs/${webJob.job_id}`, { headers: { 'x-job-token': webJob.job_token } })).json()) as { status: string }).status === 'completed', 20_000, 'the web job');
  });
  after(async () => {
    await p.stop();
  });

  /** One session per studio user, until an operation ends it. */
  const sessions = new Map<Credential, string>();

  /** Headers of one credential. */
  async function headersOf(c: Credential): Promise<Record<string, string>> {
    switch (c) {
      case 'none': return {};
      case 'wrong_key': return { 'x-api-key': 'tts_0123456789abcdef_notarealsecretnotarealsecretnotarealsec' };
      case 'wrong_admin_key': return { 'x-admin-key': 'not-the-admin-key-but-long-enough' };
      case 'disabled_key': case 'owner_key': case 'other_key': return { 'x-api-key': creds[c].apiKey };
      case 'studio_user': case 'studio_other': case 'studio_admin': {
        const { login, password } = studioLogins[c];
        let token = sessions.get(c);
        if (token === undefined) sessions.set(c, (token = (await p.facade.deps.access.studio.login(login, password, '127.0.0.1', 'matrix')).token));
        return { 'x-studio-token': token };
      }
      case 'admin_key': return { 'x-admin-key': p.adminKey };
      case 'job_token': case 'other_job_token': case 'expired_job_token': return { 'x-job-token': tokens[c] };
      case 'xi_key': return { 'xi-api-key': creds.other_key.apiKey };
      case 'xi_wrong_key': return { 'xi-api-key': 'tts_0123456789abcdef_notarealsecretnotarealsecretnotarealsec' };
    }
  }

  let vipUsers = 0;
  /** A fresh VIP request of a new registered user (approving or rejecting one decides it). */
  async function freshVipRequest(): Promise<string> {
    const studio = p.facade.deps.access.studio;
    const user = await studio.register({ username: `matrixvip${++vipUsers}`, password: 'vip passphrase 2718' }, undefined, 'matrix');
    return (await p.facade.deps.studio.vip.request(await studio.authenticate(user.token), 'vip_month', 'Matrix.', 'matrix')).requestId;
  }

  /** Calls `op` with credential `c`; `consumes`: the call may decide the VIP request it names, so it gets a fresh one. */
  async function call(op: DocumentedOperation, sample: Sample, c: Credential, consumes: boolean): Promise<Response> {
    let path = sample.path;
    for (const [k, v] of Object.entries(ids)) path = path.replace(`{${k}}`, encodeURIComponent(v));
    if (path.includes('{request_id}')) path = path.replace('{request_id}', consumes ? await freshVipRequest() : ids['vip_request_id']!);
    const headers = await headersOf(c);
    let body: string | FormData | undefined;
    if (sample.files) {
      body = new FormData();
      for (const [k, v] of Object.entries(sample.form ?? {})) body.append(k, v);
      for (const [k, v] of Object.entries(sample.files)) body.append(k, new Blob([v]), 'tone.wav');
    } else if (sample.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(sample.form).toString();
    } else if (sample.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(sample.body);
    }
    return fetch(`${p.url}${path}`, { method: op.method.toUpperCase(), headers, body });
  }

  test('every documented operation x every credential answers the status RULES and OWNED call for', { timeout: 300_000 }, async () => {
    // What removes a resource runs last (a share before its preset), after every operation that reads it.
    const ops = operationsOf(loadOpenApiDocument()).sort((a, b) => LAST.indexOf(a.operationId) - LAST.indexOf(b.operationId));
    assert.ok(ops.length >= 69);
    const document = loadOpenApiDocument().document as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
    // Resources are consumed by their owner: it is called last, after everyone it refuses.
    const order: Credential[] = [...CREDENTIALS.filter((c) => c !== 'owner_key' && c !== 'studio_user'), 'owner_key', 'studio_user'];
    const failures: string[] = [];
    const seen = new Map<Access, number>();
    for (const op of ops) {
      const access = accessOf(op);
      seen.set(access, (seen.get(access) ?? 0) + 1);
      const sample = SAMPLES[op.operationId] ?? { path: op.path };
      const firstOk = Number(Object.keys(document.paths[op.path]![op.method]!.responses).find((s) => s.startsWith('2')));
      for (const c of order) {
        const rule = RULES[access][c] ?? RULES[access].otherwise;
        const owned = OWNED[op.operationId];
        const cell: Cell = rule === 'ok' && owned && !owned.owners.includes(c) ? owned.notOwner : rule;
        const res = await call(op, sample, c, cell === 'ok');
        const text = await res.text();
        if (SESSION_ENDING.has(op.operationId)) sessions.delete(c);
        if (cell === 'ok') {
          const want = sample.okFor?.[c] ?? sample.ok ?? firstOk;
          // -1: the operation's answer depends on the machine or on the caller's account (a model
          // installed, a plan open to the tier): any answer but an access refusal.
          const refused = (res.status === 401 || res.status === 403) && /"(AUTH_|STUDIO_SESSION|STUDIO_ADMIN|JOB_TOKEN)/.test(text);
          if (want === -1 ? refused || (res.status >= 500 && res.status !== 503) : res.status !== want) failures.push(`${op.operationId} with ${c}: ${res.status} (want ${want === -1 ? 'no refusal' : want}) ${text.slice(0, 160)}`);
        } else if (res.status !== ERROR_CATALOGUE[cell].http || !text.includes(`"${cell}"`)) {
          failures.push(`${op.operationId} with ${c}: ${res.status} ${text.slice(0, 160)} (want ${ERROR_CATALOGUE[cell].http} ${cell})`);
        }
      }
    }
    console.log(`authz matrix: ${ops.length} operations x ${CREDENTIALS.length} credentials; operations per kind of security ${JSON.stringify(Object.fromEntries(seen))}`);
    assert.deepEqual(failures, []);
    assert.equal(seen.size, Object.keys(RULES).length, 'every row of RULES is used by some operation');
  });

  test('owner scoping: lists show only the caller\'s jobs, clips, presets, shares, lexicon entries and usage; the audit records who was refused', async () => {
    const get = async (path: string, c: Credential): Promise<{ status: number; text: string }> => {
      const res = await fetch(`${p.url}${path}`, { headers: await headersOf(c) });
      return { status: res.status, text: await res.text() };
    };
    // Fresh resources of each owner (the matrix removed the first ones).
    const form = new FormData();
    form.append('ref_audio', new Blob([WAV]), 'tone.wav');
    const ref = (await (await fetch(`${p.url}/api/reference/validate`, { method: 'POST', headers: { 'x-api-key': creds.owner_key.apiKey }, body: form })).json()) as { reference_id: string };
    const studio = p.facade.deps.access.studio;
    const owner = await studio.authenticate((await headersOf('studio_user'))['x-studio-token']);
    const preset = await p.facade.deps.studio.presets.create(owner, { name: 'Scoped preset' });
    const share = await p.facade.deps.studio.presets.share(owner, preset.presetId, undefined);
    // A lexicon entry of the owner key and one of the studio user.
    for (const [c, word] of [['owner_key', 'ownerword'], ['studio_user', 'studioword']] as const) {
      const put = await fetch(`${p.url}/api/lexicon/entries/${word}`, { method: 'PUT', headers: { ...(await headersOf(c)), 'content-type': 'application/json' }, body: JSON.stringify({ respelling: 'oh-ner' }) });
      assert.equal(put.status, 201, `${c} adds ${word}`);
    }
    const lists: [string, Credential, Credential, readonly string[]][] = [
      ['/api/web/jobs', 'owner_key', 'other_key', [ids['web_job_id']!]],
      ['/api/reference/clips', 'owner_key', 'other_key', [ref.reference_id]],
      ['/api/reference/clips', 'owner_key', 'studio_user', [ref.reference_id]],
      ['/api/studio/presets', 'studio_user', 'studio_other', [preset.presetId]],
      ['/api/studio/shares', 'studio_user', 'studio_other', [share.share.shareId]],
      ['/api/studio/presets', 'studio_user', 'studio_admin', [preset.presetId]],
      ['/api/lexicon', 'owner_key', 'other_key', ['ownerword']],
      ['/api/lexicon', 'owner_key', 'studio_user', ['ownerword']],
      ['/api/lexicon', 'studio_user', 'studio_other', ['studioword']],
    ];
    for (const [path, mine, theirs, owned] of lists) {
      const a = await get(path, mine);
      const b = await get(path, theirs);
      assert.deepEqual([a.status, b.status], [200, 200], path);
      for (const id of owned) {
        assert.ok(a.text.includes(id), `${path}: ${mine} sees its ${id}`);
        assert.ok(!b.text.includes(id), `${path}: ${theirs} does not see ${mine}'s ${id}`);
      }
    }
    // The other web job's owner sees its own job and not the owner's.
    assert.ok((await get('/api/web/jobs', 'other_key')).text.includes(tokens.other_job_token.split('.')[0]!));

    // Usage: a key sees its own rows only, and may not ask for another key's.
    await p.facade.deps.metering.drain();
    const usage = JSON.parse((await get('/api/usage/summary', 'other_key')).text) as { rows: { key_id: string }[] };
    assert.ok(usage.rows.length > 0 && usage.rows.every((r) => r.key_id === creds.other_key.keyId), 'a key sees only its own usage');
    const foreign = await get(`/api/usage/summary?key_id=${creds.owner_key.keyId}`, 'other_key');
    assert.equal(foreign.status, 403);
    assert.equal((await get(`/api/usage/summary?key_id=${creds.owner_key.keyId}`, 'admin_key')).status, 200);

    // The job-access audit (administrator only) records the other key's refused reads of the owner's job and the owner's own reads.
    const audit = JSON.parse((await get(`/api/usage/job-access-audit?limit=1000`, 'admin_key')).text) as { records: { job_id: string; requester_key_id: string | null; allowed: boolean; reason: string }[] };
    const ofJob = audit.records.filter((r) => r.job_id === ids['job_id']);
    assert.ok(ofJob.some((r) => r.requester_key_id === creds.other_key.keyId && !r.allowed && r.reason === 'not_owner'), 'the refused read is audited');
    assert.ok(ofJob.some((r) => r.requester_key_id === creds.owner_key.keyId && r.allowed && r.reason === 'owner'), 'the owner read is audited');
    assert.ok(!ofJob.some((r) => r.requester_key_id === creds.other_key.keyId && r.allowed), 'no read by another key was allowed');
  });

  test('a studio administrator cannot approve their own VIP request (403, audited); another administrator can', async () => {
    const studio = p.facade.deps.access.studio;
    // An administrator of its own (the matrix's studio_admin already has a request waiting).
    const adminSession = await studio.register({ username: 'matrixselfadmin', password: 'self admin passphrase 2718' }, undefined, 'matrix');
    await studio.updateUser('admin', null, adminSession.user.userId, { role: 'admin' }, 'matrix');
    const own = await p.facade.deps.studio.vip.request(await studio.authenticate(adminSession.token), 'vip_month', 'My own.', 'matrix');
    const self = await fetch(`${p.url}/api/studio/admin/vip-requests/${own.requestId}/approve`, { method: 'POST', headers: { 'x-studio-token': adminSession.token } });
    assert.equal(self.status, 403);
    assert.equal(((await self.json()) as { code: string }).code, 'STUDIO_VIP_SELF_APPROVAL');
    assert.equal((await p.facade.deps.studio.vip.list('pending_review', 1000)).find((r) => r.requestId === own.requestId)?.status, 'pending_review', 'the request still waits');
    const refusals = await p.facade.deps.access.database.query<{ actor: string }>("SELECT actor FROM studio_audit WHERE vip_request_id = $1::text AND action = 'vip_request.self_approval_refused'", [own.requestId]);
    assert.deepEqual(refusals.map((r) => r.actor), [`studio:${adminSession.user.userId}`], 'the refused self-approval is audited');
    assert.equal((await fetch(`${p.url}/api/studio/admin/vip-requests/${own.requestId}/approve`, { method: 'POST', headers: { 'x-admin-key': p.adminKey } })).status, 200);
  });
});
