/**
 * The administration API as the pages use it: the shapes of its answers (from the OpenAPI
 * document) and one function per call, each carrying the credential the page chose.
 */
import { request, type Auth } from '../../lib/api.js';

/** The credential a studio-administration call carries: a studio admin session or the admin key. */
export type AdminAuth = Extract<Auth, 'studio' | 'admin'>;

/** A studio user (StudioUser, administrators' view). */
export interface StudioUser {
  readonly user_id: string;
  readonly kind: 'guest' | 'registered' | 'deleted';
  readonly username: string | null;
  readonly email: string | null;
  readonly role: 'user' | 'admin';
  readonly vip: boolean;
  readonly vip_until: string | null;
  readonly created_at: string;
  readonly disabled?: boolean;
  readonly updated_at?: string;
  readonly last_login_at?: string | null;
}

/** GET /api/studio/auth/me (the part the pages read). */
export interface StudioMe {
  readonly user: StudioUser;
}

/** The status of a VIP request. */
export type VipStatus = 'pending_review' | 'approved' | 'rejected';

/** A VIP request (StudioVipRequest, administrators' view). */
export interface VipRequest {
  readonly request_id: string;
  readonly source: 'slip' | 'manual';
  readonly plan_id: string;
  readonly status: VipStatus;
  readonly reason: string;
  readonly created_at: string;
  readonly decided_at: string | null;
  readonly vip_until: string | null;
  readonly user_id?: string;
  readonly message?: string | null;
  readonly expected_amount?: number | null;
  readonly slip?: Readonly<Record<string, unknown>> | null;
  readonly decided_by?: string | null;
}

/** The changes PATCH /api/studio/admin/users/{user_id} accepts. */
export interface UserUpdate {
  readonly role?: 'user' | 'admin';
  readonly vip_until?: string | null;
  readonly disabled?: boolean;
}

/** The status of an abuse report. */
export type AbuseStatus = 'open' | 'reviewing' | 'actioned' | 'dismissed';

/** An abuse report (AbuseReport). */
export interface AbuseReport {
  readonly report_id: string;
  readonly status: AbuseStatus;
  readonly category: string;
  readonly created_at: string;
  readonly updated_at: string;
  readonly description: string;
  readonly reporter_contact: string | null;
  readonly request_id: string | null;
  readonly evidence_url: string | null;
  readonly sample: { readonly sha256?: string; readonly bytes?: number } | null;
  readonly watermark: { readonly detected?: boolean; readonly confidence?: number; readonly payload?: string | null; readonly key_id?: number | null } | null;
  readonly linked_request_id: string | null;
  readonly watermark_detected: boolean | null;
}

/** One status change of a report. */
export interface AbuseHistoryEntry {
  readonly at: string;
  readonly actor: string;
  readonly from: string | null;
  readonly to: string;
  readonly note: string | null;
}

/** An abuse report with its history (AbuseReportDetail). */
export interface AbuseReportDetail extends AbuseReport {
  readonly history: readonly AbuseHistoryEntry[];
}

/** A tier of GET /api/auth/tiers. */
export interface Tier {
  readonly name: string;
  readonly rate_per_minute: number;
  readonly daily_char_quota: number;
  readonly monthly_char_quota: number;
  readonly max_text_length: number;
  readonly concurrent_jobs: number;
  readonly price_per_million_chars_usd: number;
}

/** An API key, never its secret (ApiKey). */
export interface ApiKey {
  readonly key_id: string;
  readonly name: string;
  readonly prefix: string;
  readonly tier: string;
  readonly disabled: boolean;
  readonly daily_char_quota?: number | null;
  readonly monthly_char_quota?: number | null;
  /** The key's own requests per minute; null: its tier's `rate_per_minute`. */
  readonly rate_limit_per_minute?: number | null;
  readonly created_at: string;
  readonly updated_at: string;
}

/** A created key with its secret, shown this once (ApiKeyCreated). */
export interface ApiKeyCreated extends ApiKey {
  readonly api_key: string;
}

/** The fields of creating or changing a key. */
export interface ApiKeyFields {
  readonly name?: string;
  readonly tier?: string;
  readonly disabled?: boolean;
  readonly daily_char_quota?: number | null;
  readonly monthly_char_quota?: number | null;
  /** 1 to 100000 requests per minute; null: the tier's. */
  readonly rate_limit_per_minute?: number | null;
}

/** What the hub said about a token (HubValidationResult). */
export interface HubValidation {
  readonly valid: boolean | null;
  readonly account: string | null;
  readonly http_status: number | null;
  readonly latency_ms: number;
  readonly error_code: string | null;
}

/** GET /api/hub/token/status (HubTokenStatus). */
export interface HubTokenStatus {
  readonly configured: boolean;
  readonly masked: string | null;
  readonly set_at: string | null;
  readonly decryptable: boolean | null;
  readonly hub_url: string;
  readonly last_validation: { readonly at?: string; readonly valid?: boolean | null; readonly account?: string | null; readonly error_code?: string | null } | null;
  readonly validation: HubValidation | null;
}

/** POST /api/hub/token/validate (HubTokenValidation). */
export interface HubTokenValidation extends HubValidation {
  readonly masked: string;
  readonly stored: boolean;
  readonly hub_url: string;
}

const body = async <T>(p: Promise<{ body: T }>): Promise<T> => (await p).body;
const id = encodeURIComponent;

/** The studio user of the stored session. */
export const studioMe = (): Promise<StudioMe> => body(request<StudioMe>('GET', '/api/studio/auth/me', { auth: 'studio' }));

/** VIP requests, newest first, optionally one status only. */
export const listVipRequests = async (auth: AdminAuth, status?: VipStatus): Promise<VipRequest[]> =>
  (await body(request<{ data: VipRequest[] }>('GET', `/api/studio/admin/vip-requests?limit=1000${status ? `&status=${status}` : ''}`, { auth }))).data;

/** Approves or rejects a waiting VIP request. */
export const decideVipRequest = (auth: AdminAuth, requestId: string, verb: 'approve' | 'reject'): Promise<VipRequest> =>
  body(request<VipRequest>('POST', `/api/studio/admin/vip-requests/${id(requestId)}/${verb}`, { auth }));

/** Studio users, newest first. */
export const listUsers = async (auth: AdminAuth): Promise<StudioUser[]> =>
  (await body(request<{ data: StudioUser[] }>('GET', '/api/studio/admin/users?limit=1000', { auth }))).data;

/** Changes a user's role, VIP end or disabled flag. */
export const updateUser = (auth: AdminAuth, userId: string, change: UserUpdate): Promise<StudioUser> =>
  body(request<StudioUser>('PATCH', `/api/studio/admin/users/${id(userId)}`, { auth, json: change }));

/** Ends every session of a user; answers how many ended. */
export const revokeSessions = async (auth: AdminAuth, userId: string): Promise<number> =>
  (await body(request<{ sessions_ended: number }>('POST', `/api/studio/admin/users/${id(userId)}/revoke-sessions`, { auth }))).sessions_ended;

/** Abuse reports, newest first, optionally one status only. */
export const listAbuseReports = async (auth: AdminAuth, status?: AbuseStatus): Promise<AbuseReport[]> =>
  (await body(request<{ data: AbuseReport[] }>('GET', `/api/compliance/abuse/reports?limit=1000${status ? `&status=${status}` : ''}`, { auth }))).data;

/** One abuse report with its history. */
export const getAbuseReport = (auth: AdminAuth, reportId: string): Promise<AbuseReportDetail> =>
  body(request<AbuseReportDetail>('GET', `/api/compliance/abuse/reports/${id(reportId)}`, { auth }));

/** Moves a report to its next status, with an optional note. */
export const moveAbuseReport = (auth: AdminAuth, reportId: string, status: AbuseStatus, note: string): Promise<AbuseReportDetail> =>
  body(request<AbuseReportDetail>('POST', `/api/compliance/abuse/reports/${id(reportId)}/status`, { auth, json: note ? { status, note } : { status } }));

/** The tiers and the default one. */
export const listTiers = (): Promise<{ default_tier: string; tiers: Tier[] }> => body(request('GET', '/api/auth/tiers'));

/** API keys (never their secrets). */
export const listApiKeys = async (): Promise<ApiKey[]> => (await body(request<{ keys: ApiKey[] }>('GET', '/api/auth/keys', { auth: 'admin' }))).keys;

/** Creates a key; the answer holds its secret, this once. */
export const createApiKey = (fields: ApiKeyFields & { name: string }): Promise<ApiKeyCreated> =>
  body(request<ApiKeyCreated>('POST', '/api/auth/keys', { auth: 'admin', json: fields }));

/** Changes a key's name, tier, disabled flag, quota or rate overrides. */
export const updateApiKey = (keyId: string, fields: ApiKeyFields): Promise<ApiKey> =>
  body(request<ApiKey>('PATCH', `/api/auth/keys/${id(keyId)}`, { auth: 'admin', json: fields }));

/** Whether a hub token is set (never the token). */
export const hubTokenStatus = (): Promise<HubTokenStatus> => body(request<HubTokenStatus>('GET', '/api/hub/token/status', { auth: 'admin' }));

/** Stores a hub token, checked with the hub first unless `validate` is false. */
export const setHubToken = (token: string, validate: boolean): Promise<HubTokenStatus> =>
  body(request<HubTokenStatus>('POST', '/api/hub/token', { auth: 'admin', json: { token, validate } }));

/** Asks the hub about the stored token. */
export const validateHubToken = (): Promise<HubTokenValidation> => body(request<HubTokenValidation>('POST', '/api/hub/token/validate', { auth: 'admin', json: {} }));

/** Clears the stored hub token; answers whether one was set. */
export const deleteHubToken = async (): Promise<boolean> => (await body(request<{ deleted: boolean }>('DELETE', '/api/hub/token', { auth: 'admin' }))).deleted;
