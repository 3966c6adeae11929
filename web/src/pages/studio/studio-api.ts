/**
 * The studio operations of the API (paths /api/studio/...) as the studio pages call them: the
 * session calls carry X-Studio-Token (auth 'studio'); the shared preset is public.
 */
import { request } from '../../lib/api.js';
import { setCredential } from '../../lib/credentials.js';
import type { Schema } from '../../lib/schema.js';

/** A studio account. */
export type StudioUser = Schema<'StudioUser'>;

/** A new session; its token is shown only once. */
export type StudioSession = Schema<'StudioSession'>;

/** GET /api/studio/auth/me: the account, its session, its limits and what it may synthesize. */
export type StudioMe = Schema<'StudioMe'>;

/** The fields of a new preset. */
export type PresetFields = Schema<'StudioPresetCreateRequest'>;

/** A stored preset. */
export type Preset = Schema<'StudioPreset'>;

/** A share link of a preset, without its token. */
export type Share = Schema<'StudioShare'>;

/** A share as created, with its token. */
export type ShareCreated = Schema<'StudioShareCreated'>;

/** GET /api/studio/share/{share_token}: the shared preset and its lexicon, which a fork copies. */
export type SharedPreset = Schema<'StudioSharedPreset'>;

/** A VIP plan. */
export type VipPlan = Schema<'StudioVipPlan'>;

/** A VIP request (the caller's view, or an administrator's with the provider's findings). */
export type VipRequest = Schema<'StudioVipRequest'>;

/** GET /api/studio/vip/info. */
export type VipInfo = Schema<'StudioVipInfo'>;

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
export async function register(fields: Schema<'StudioRegisterRequest'>): Promise<StudioSession> {
  return keep((await request<StudioSession>('POST', '/api/studio/auth/register', { auth: 'studio', json: fields })).body);
}

/** POST /api/studio/auth/login: a new session, kept. */
export async function logIn(login: string, password: string): Promise<StudioSession> {
  return keep((await request<StudioSession>('POST', '/api/studio/auth/login', { json: { login, password } satisfies Schema<'StudioLoginRequest'> })).body);
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
  return (await request<Schema<'StudioPresetList'>>('GET', '/api/studio/presets', { auth: 'studio' })).body.data;
}

/** POST /api/studio/presets. */
export async function createPreset(fields: PresetFields): Promise<Preset> {
  return (await request<Preset>('POST', '/api/studio/presets', { auth: 'studio', json: fields })).body;
}

/** PATCH /api/studio/presets/{preset_id}. */
export async function updatePreset(id: string, fields: Schema<'StudioPresetUpdateRequest'>): Promise<Preset> {
  return (await request<Preset>('PATCH', `/api/studio/presets/${encodeURIComponent(id)}`, { auth: 'studio', json: fields })).body;
}

/** DELETE /api/studio/presets/{preset_id} (its shares go with it). */
export async function deletePreset(id: string): Promise<void> {
  await request('DELETE', `/api/studio/presets/${encodeURIComponent(id)}`, { auth: 'studio' });
}

/** POST /api/studio/presets/{preset_id}/share: a link until revoked, or for `expiresInSec`. */
export async function sharePreset(id: string, expiresInSec?: number): Promise<ShareCreated> {
  const json = (expiresInSec ? { expires_in_sec: expiresInSec } : {}) satisfies Schema<'StudioShareCreateRequest'>;
  return (await request<ShareCreated>('POST', `/api/studio/presets/${encodeURIComponent(id)}/share`, { auth: 'studio', json })).body;
}

/** GET /api/studio/shares. */
export async function listShares(): Promise<readonly Share[]> {
  return (await request<Schema<'StudioShareList'>>('GET', '/api/studio/shares', { auth: 'studio' })).body.data;
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
  return (await request<Preset>('POST', `/api/studio/share/${encodeURIComponent(token)}/fork`, { auth: 'studio', json: (name ? { name } : {}) satisfies Schema<'StudioShareForkRequest'> })).body;
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
  return (await request<VipRequest>('POST', '/api/studio/vip/request', { auth: 'studio', json: { plan_id: planId, message } satisfies Schema<'StudioVipRequestRequest'> })).body;
}
