/**
 * The studio operations of the API (paths /api/studio/...) as the studio pages call them: the
 * session calls carry X-Studio-Token (auth 'studio'); the shared preset is public.
 */
import { request } from '../../lib/api.js';
import { setCredential } from '../../lib/credentials.js';

/** A studio account (StudioUser). */
export interface StudioUser {
  readonly user_id: string;
  readonly kind: 'guest' | 'registered' | 'deleted';
  readonly username: string | null;
  readonly email: string | null;
  readonly role: 'user' | 'admin';
  readonly vip: boolean;
  readonly vip_until: string | null;
  readonly created_at: string;
}

/** A new session (StudioSession); its token is shown only once. */
export interface StudioSession {
  readonly token: string;
  readonly expires_at: string;
  readonly user: StudioUser;
}

/** What the account may synthesize, and how much it used (StudioSynthesisTier). */
export interface SynthesisTier {
  readonly tier: 'studio_guest' | 'studio_member' | 'studio_vip';
  readonly rate_per_minute: number;
  readonly max_text_length: number;
  readonly daily_char_quota: number;
  readonly monthly_char_quota: number;
  readonly used?: { stage: string; day_characters: number; month_characters: number; day_resets_unix: number; month_resets_unix: number };
}

/** GET /api/studio/auth/me (StudioMe). */
export interface StudioMe {
  readonly user: StudioUser;
  readonly session: { session_id: string; expires_at: string; absolute_expires_at: string };
  readonly limits: { presets: number; active_shares: number };
  readonly synthesis: SynthesisTier;
}

/** The fields of a preset a person edits (StudioPresetFields and name). */
export interface PresetFields {
  readonly name: string;
  readonly voice: string | null;
  readonly speed: number | null;
  readonly format: string | null;
  readonly sample_text: string | null;
  readonly notes: string | null;
}

/** A stored preset (StudioPreset). */
export interface Preset extends PresetFields {
  readonly preset_id: string;
  readonly engine: string | null;
  readonly reference_id: string | null;
  readonly forked_from: { share_id: string } | null;
  readonly created_at: string;
  readonly updated_at: string;
}

/** A share link of a preset, without its token (StudioShare). */
export interface Share {
  readonly share_id: string;
  readonly preset_id: string;
  readonly status: 'active' | 'revoked' | 'expired';
  readonly created_at: string;
  readonly expires_at: string | null;
  readonly revoked_at: string | null;
  readonly fork_count: number;
}

/** A share as created, with its token (StudioShareCreated). */
export interface ShareCreated extends Share {
  readonly share_token: string;
}

/** GET /api/studio/share/{share_token} (StudioSharedPreset). */
export interface SharedPreset {
  readonly preset: { name: string; voice: string | null; engine: string | null; speed: number | null; format: string | null; sample_text: string | null };
  /** The preset's pronunciation lexicon (LexiconEntry), which a fork copies. */
  readonly lexicon: readonly { word: string; ipa: string | null; respelling: string | null; case_sensitive: boolean }[];
  readonly shared_at: string;
  readonly expires_at: string | null;
  readonly fork_count: number;
}

/** A VIP plan (StudioVipPlan). */
export interface VipPlan {
  readonly plan_id: string;
  readonly name: string;
  readonly price: number;
  readonly currency: string;
  readonly days: number;
}

/** A VIP request of the caller (StudioVipRequest). */
export interface VipRequest {
  readonly request_id: string;
  readonly source: 'slip' | 'manual';
  readonly plan_id: string;
  readonly status: 'pending_review' | 'approved' | 'rejected';
  readonly reason: string;
  readonly created_at: string;
  readonly decided_at: string | null;
  readonly vip_until: string | null;
}

/** GET /api/studio/vip/info (StudioVipInfo). */
export interface VipInfo {
  readonly plans: readonly VipPlan[];
  readonly payment: { method: string; provider: string | null; automatic: boolean };
  readonly status: { vip: boolean; vip_until: string | null; kind: string };
  readonly requests: readonly VipRequest[];
}

interface List<T> {
  readonly data: readonly T[];
}

/** Keeps the token of a new session, so the next calls carry it. */
function keep(session: StudioSession): StudioSession {
  setCredential('studioToken', session.token);
  return session;
}

/** POST /api/studio/auth/guest: a guest session, kept. */
export async function startGuest(): Promise<StudioSession> {
  return keep((await request<StudioSession>('POST', '/api/studio/auth/guest')).body);
}

/** POST /api/studio/auth/register: a new account (a guest session, if any, becomes it), kept. */
export async function register(fields: { username?: string; email?: string; password: string }): Promise<StudioSession> {
  return keep((await request<StudioSession>('POST', '/api/studio/auth/register', { auth: 'studio', json: fields })).body);
}

/** POST /api/studio/auth/login: a new session, kept. */
export async function logIn(login: string, password: string): Promise<StudioSession> {
  return keep((await request<StudioSession>('POST', '/api/studio/auth/login', { json: { login, password } })).body);
}

/** POST /api/studio/auth/logout, then forgets the token (also when the session had already ended). */
export async function logOut(): Promise<void> {
  try {
    await request('POST', '/api/studio/auth/logout', { auth: 'studio' });
  } finally {
    setCredential('studioToken', undefined);
  }
}

/** GET /api/studio/auth/me. */
export async function getMe(): Promise<StudioMe> {
  return (await request<StudioMe>('GET', '/api/studio/auth/me', { auth: 'studio' })).body;
}

/** GET /api/studio/presets. */
export async function listPresets(): Promise<readonly Preset[]> {
  return (await request<List<Preset>>('GET', '/api/studio/presets', { auth: 'studio' })).body.data;
}

/** POST /api/studio/presets. */
export async function createPreset(fields: PresetFields): Promise<Preset> {
  return (await request<Preset>('POST', '/api/studio/presets', { auth: 'studio', json: fields })).body;
}

/** PATCH /api/studio/presets/{preset_id}. */
export async function updatePreset(id: string, fields: PresetFields): Promise<Preset> {
  return (await request<Preset>('PATCH', `/api/studio/presets/${encodeURIComponent(id)}`, { auth: 'studio', json: fields })).body;
}

/** DELETE /api/studio/presets/{preset_id} (its shares go with it). */
export async function deletePreset(id: string): Promise<void> {
  await request('DELETE', `/api/studio/presets/${encodeURIComponent(id)}`, { auth: 'studio' });
}

/** POST /api/studio/presets/{preset_id}/share: a link until revoked, or for `expiresInSec`. */
export async function sharePreset(id: string, expiresInSec?: number): Promise<ShareCreated> {
  const json = expiresInSec ? { expires_in_sec: expiresInSec } : {};
  return (await request<ShareCreated>('POST', `/api/studio/presets/${encodeURIComponent(id)}/share`, { auth: 'studio', json })).body;
}

/** GET /api/studio/shares. */
export async function listShares(): Promise<readonly Share[]> {
  return (await request<List<Share>>('GET', '/api/studio/shares', { auth: 'studio' })).body.data;
}

/** DELETE /api/studio/shares/{share_id}. */
export async function revokeShare(id: string): Promise<Share> {
  return (await request<Share>('DELETE', `/api/studio/shares/${encodeURIComponent(id)}`, { auth: 'studio' })).body;
}

/** GET /api/studio/share/{share_token} (public). */
export async function getShared(token: string): Promise<SharedPreset> {
  return (await request<SharedPreset>('GET', `/api/studio/share/${encodeURIComponent(token)}`)).body;
}

/** POST /api/studio/share/{share_token}/fork: a copy in the caller's presets. */
export async function forkShared(token: string, name?: string): Promise<Preset> {
  return (await request<Preset>('POST', `/api/studio/share/${encodeURIComponent(token)}/fork`, { auth: 'studio', json: name ? { name } : {} })).body;
}

/** GET /api/studio/vip/info. */
export async function getVipInfo(): Promise<VipInfo> {
  return (await request<VipInfo>('GET', '/api/studio/vip/info', { auth: 'studio' })).body;
}

/** POST /api/studio/vip/slip (multipart): the request with the provider's outcome. */
export async function submitSlip(planId: string, slip: File): Promise<VipRequest> {
  const form = new FormData();
  form.append('plan_id', planId);
  form.append('slip', slip, slip.name);
  return (await request<VipRequest>('POST', '/api/studio/vip/slip', { auth: 'studio', form })).body;
}

/** POST /api/studio/vip/request: a manual request for an administrator. */
export async function requestVip(planId: string, message: string): Promise<VipRequest> {
  return (await request<VipRequest>('POST', '/api/studio/vip/request', { auth: 'studio', json: { plan_id: planId, message } })).body;
}
