/**
 * The administration API as the pages use it: the shapes of its answers (from the OpenAPI
 * document) and one function per call, each carrying the credential the page chose.
 */
import { request, type Auth } from '../../lib/api.js';
import type { Schema } from '../../lib/schema.js';

/** The credential a studio-administration call carries: a studio admin session or the admin key. */
export type AdminAuth = Extract<Auth, 'studio' | 'admin'>;

/** A studio user (with the administrators' view fields: disabled, updated_at, last_login_at). */
export type StudioUser = Schema<'StudioUser'>;

/** A VIP request (with the administrators' view fields: user, message, amount, slip findings). */
export type VipRequest = Schema<'StudioVipRequest'>;

/** The status of a VIP request. */
export type VipStatus = VipRequest['status'];

/** The changes PATCH /api/studio/admin/users/{user_id} accepts. */
export type UserUpdate = Schema<'StudioAdminUserUpdateRequest'>;

/** The status of an abuse report. */
export type AbuseStatus = Schema<'AbuseStatus'>;

/** A status a report may be moved to (every one but `open`). */
export type AbuseMove = Schema<'AbuseReportStatusUpdate'>['status'];

/** An abuse report. */
export type AbuseReport = Schema<'AbuseReport'>;

/** An abuse report with its history of status changes. */
export type AbuseReportDetail = Schema<'AbuseReportDetail'>;

/** A tier of GET /api/auth/tiers. */
export type Tier = Schema<'Tier'>;

/** An API key, never its secret. */
export type ApiKey = Schema<'ApiKey'>;

/** A created key with its secret, shown this once. */
export type ApiKeyCreated = Schema<'ApiKeyCreated'>;

/** What the hub said about a token. */
export type HubValidation = Schema<'HubValidationResult'>;

/** GET /api/hub/token/status. */
export type HubTokenStatus = Schema<'HubTokenStatus'>;

/** POST /api/hub/token/validate. */
export type HubTokenValidation = Schema<'HubTokenValidation'>;

const body = async <T>(p: Promise<{ body: T }>): Promise<T> => (await p).body;
const id = encodeURIComponent;

/** VIP requests, newest first, optionally one status only. */
export const listVipRequests = async (auth: AdminAuth, status?: VipStatus): Promise<VipRequest[]> =>
  (await body(request<Schema<'StudioVipRequestList'>>('GET', `/api/studio/admin/vip-requests?limit=1000${status ? `&status=${status}` : ''}`, { auth }))).data;

/** Approves or rejects a waiting VIP request. */
export const decideVipRequest = (auth: AdminAuth, requestId: string, verb: 'approve' | 'reject'): Promise<VipRequest> =>
  body(request<VipRequest>('POST', `/api/studio/admin/vip-requests/${id(requestId)}/${verb}`, { auth }));

/** Studio users, newest first. */
export const listUsers = async (auth: AdminAuth): Promise<StudioUser[]> =>
  (await body(request<Schema<'StudioUserList'>>('GET', '/api/studio/admin/users?limit=1000', { auth }))).data;

/** Changes a user's role, VIP end or disabled flag. */
export const updateUser = (auth: AdminAuth, userId: string, change: UserUpdate): Promise<StudioUser> =>
  body(request<StudioUser>('PATCH', `/api/studio/admin/users/${id(userId)}`, { auth, json: change }));

/** Ends every session of a user; answers how many ended. */
export const revokeSessions = async (auth: AdminAuth, userId: string): Promise<number> =>
  (await body(request<Schema<'StudioSessionsRevoked'>>('POST', `/api/studio/admin/users/${id(userId)}/revoke-sessions`, { auth }))).sessions_ended;

/** Abuse reports, newest first, optionally one status only. */
export const listAbuseReports = async (auth: AdminAuth, status?: AbuseStatus): Promise<AbuseReport[]> =>
  (await body(request<Schema<'AbuseReportList'>>('GET', `/api/compliance/abuse/reports?limit=1000${status ? `&status=${status}` : ''}`, { auth }))).data;

/** One abuse report with its history. */
export const getAbuseReport = (auth: AdminAuth, reportId: string): Promise<AbuseReportDetail> =>
  body(request<AbuseReportDetail>('GET', `/api/compliance/abuse/reports/${id(reportId)}`, { auth }));

/** Moves a report to its next status, with an optional note. */
export const moveAbuseReport = (auth: AdminAuth, reportId: string, status: AbuseMove, note: string): Promise<AbuseReportDetail> =>
  body(request<AbuseReportDetail>('POST', `/api/compliance/abuse/reports/${id(reportId)}/status`, { auth, json: (note ? { status, note } : { status }) satisfies Schema<'AbuseReportStatusUpdate'> }));

/** The tiers and the default one. */
export const listTiers = (): Promise<Schema<'TierList'>> => body(request<Schema<'TierList'>>('GET', '/api/auth/tiers'));

/** API keys (never their secrets). */
export const listApiKeys = async (): Promise<ApiKey[]> => (await body(request<Schema<'ApiKeyList'>>('GET', '/api/auth/keys', { auth: 'admin' }))).keys;

/** Creates a key; the answer holds its secret, this once. */
export const createApiKey = (fields: Schema<'ApiKeyCreateRequest'>): Promise<ApiKeyCreated> =>
  body(request<ApiKeyCreated>('POST', '/api/auth/keys', { auth: 'admin', json: fields }));

/** Changes a key's name, tier, disabled flag, quota or rate overrides. */
export const updateApiKey = (keyId: string, fields: Schema<'ApiKeyUpdateRequest'>): Promise<ApiKey> =>
  body(request<ApiKey>('PATCH', `/api/auth/keys/${id(keyId)}`, { auth: 'admin', json: fields }));

/** Whether a hub token is set (never the token). */
export const hubTokenStatus = (): Promise<HubTokenStatus> => body(request<HubTokenStatus>('GET', '/api/hub/token/status', { auth: 'admin' }));

/** Stores a hub token, checked with the hub first unless `validate` is false. */
export const setHubToken = (token: string, validate: boolean): Promise<HubTokenStatus> =>
  body(request<HubTokenStatus>('POST', '/api/hub/token', { auth: 'admin', json: { token, validate } satisfies Schema<'HfTokenSetRequest'> }));

/** Asks the hub about the stored token. */
export const validateHubToken = (): Promise<HubTokenValidation> =>
  body(request<HubTokenValidation>('POST', '/api/hub/token/validate', { auth: 'admin', json: {} satisfies Schema<'HfTokenValidateRequest'> }));

/** Clears the stored hub token; answers whether one was set. */
export const deleteHubToken = async (): Promise<boolean> => (await body(request<Schema<'HubTokenDeleted'>>('DELETE', '/api/hub/token', { auth: 'admin' }))).deleted;
