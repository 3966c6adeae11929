/**
 * Access control of one operation, derived from its `security` requirements in the OpenAPI
 * document (the single source of truth):
 * - no requirement: public;
 * - ApiKeyHeader / BearerAuth / XiApiKey: an API key (X-API-Key, `Authorization: Bearer` for OpenAI
 *   clients, or `xi-api-key` for ElevenLabs clients where the operation lists XiApiKey);
 * - ChallengeCookie: the anti-bot challenge pass, when the auth mode is api_key_or_challenge;
 * - AdminKey: the administrator key (X-Admin-Key);
 * - StudioToken: a studio session (X-Studio-Token), counted against the operation's
 *   `x-rate-profile` (`studio`, 8/min per user, for what costs; `studio_edit`, 120/min per session,
 *   for reading and editing one's own presets and shares); `x-studio-role: admin` asks for the
 *   admin role (administration: the administrator key or a studio administrator);
 * - SpeechStreamToken: a single-use streaming token (`?token=`) minted by an API key
 *   (identity/stream-tokens.ts), for browsers opening the speech WebSocket; it stands for that key
 *   (an API key sent in a header is read first);
 * - JobTokenHeader / JobTokenQuery: a web job's token, checked by the handler; every call is counted
 *   against the `job_token` profile per client address (right or wrong token), so tokens cannot be
 *   guessed at speed;
 * - an empty requirement `{}` beside others: the credential is optional (e.g. registering from a
 *   guest session or without one); one that is given is checked (a wrong one is refused).
 * The caller is counted against its rate profile (RateLimit-* headers on every answer) and stored
 * in res.locals for the handler.
 */
import type { Request, RequestHandler, Response } from 'express';
import { TtsError } from '@tts/common';
import type { AccessServices } from '../identity/access-services.js';
import { rateLimitHeaders, RateLimitedError, type Principal, type RateProfile } from '../identity/index.js';
import type { DocumentedOperation } from '../operations/openapi-document.js';
import type { StudioPrincipal } from '../studio/accounts.js';

/** Which credentials an operation accepts. */
export interface AccessPolicy {
  readonly apiKey: boolean;
  /** The API key may also come in ElevenLabs' `xi-api-key` header. */
  readonly xiApiKey: boolean;
  readonly challenge: boolean;
  readonly admin: boolean;
  readonly studio: boolean;
  /** A streaming token in `?token=` stands for the key that minted it. */
  readonly streamToken: boolean;
  /** A web job token (checked by the handler; counted per client address). */
  readonly jobToken: boolean;
  /** A credential is optional (an empty requirement `{}` is listed). */
  readonly anonymous: boolean;
  /** The role a studio session needs, if any. */
  readonly studioRole: 'admin' | undefined;
  /** The rate profile of a studio session. */
  readonly studioRateProfile: Extract<RateProfile, 'studio' | 'studio_edit'>;
}

/** A studio session as a caller. */
export interface StudioCaller {
  readonly method: 'studio';
  readonly principal: StudioPrincipal;
  readonly rateProfile: RateProfile;
  readonly subject: string;
}

/** The authenticated caller of a request. */
export type Caller = { readonly method: 'public' } | { readonly method: 'admin' } | Principal | StudioCaller;

/** The policy of an operation from its OpenAPI `security` array (absent or empty: public) and extensions. */
export function accessPolicyOf(security: unknown, op: Partial<Pick<DocumentedOperation, 'rateProfile' | 'studioRole'>> = {}): AccessPolicy {
  const schemes = new Set<string>();
  let anonymous = false;
  if (Array.isArray(security)) {
    for (const req of security) {
      if (!req || typeof req !== 'object') continue;
      if (Object.keys(req).length === 0) anonymous = true;
      for (const k of Object.keys(req)) schemes.add(k);
    }
  }
  return {
    apiKey: schemes.has('ApiKeyHeader') || schemes.has('BearerAuth') || schemes.has('XiApiKey'),
    xiApiKey: schemes.has('XiApiKey'),
    challenge: schemes.has('ChallengeCookie'),
    admin: schemes.has('AdminKey'),
    studio: schemes.has('StudioToken'),
    streamToken: schemes.has('SpeechStreamToken'),
    jobToken: schemes.has('JobTokenHeader') || schemes.has('JobTokenQuery'),
    anonymous,
    studioRole: op.studioRole === 'admin' ? 'admin' : undefined,
    studioRateProfile: op.rateProfile === 'studio_edit' ? 'studio_edit' : 'studio',
  };
}

/** True when the policy needs no credential. */
export function isPublic(policy: AccessPolicy): boolean {
  return !policy.apiKey && !policy.challenge && !policy.admin && !policy.studio;
}

/** The studio caller of an operation that only studio sessions reach. */
export function studioCallerOf(res: Response): StudioPrincipal {
  const caller = callerOf(res);
  if (caller.method !== 'studio') throw new TtsError('STUDIO_SESSION_MISSING');
  return caller.principal;
}

/** Who acted, for audits: `admin` (the administrator key) or `studio:<user_id>`. */
export function actorOf(caller: Caller): string {
  if (caller.method === 'studio') return `studio:${caller.principal.user.userId}`;
  if (caller.method === 'api_key') return `api_key:${caller.subject}`;
  return caller.method;
}

/** The caller stored by accessControl (public when the operation is public). */
export function callerOf(res: Response): Caller {
  return res.locals.caller ?? { method: 'public' };
}

/** The tenant a synthesis is accounted to and shared fairly by: the key, pass or studio user subject, '' for others. */
export function tenantOf(caller: Caller): string {
  return caller.method === 'api_key' || caller.method === 'challenge' || caller.method === 'studio' ? caller.subject : '';
}

/** The API key a request presents: X-API-Key, then xi-api-key (where the policy takes it), then a bearer token. */
function apiKeyOf(req: Request, policy: AccessPolicy): string | undefined {
  const header = req.get('x-api-key') ?? (policy.xiApiKey ? req.get('xi-api-key') : undefined);
  if (header !== undefined) return header;
  const authorization = req.get('authorization');
  const m = authorization === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  return m?.[1];
}

/** The streaming token of `?token=` (the first, should it be repeated), if any. */
function streamTokenOf(req: Request): string | undefined {
  const token: unknown = req.query['token'];
  const first: unknown = Array.isArray(token) ? token[0] : token;
  return typeof first === 'string' ? first : undefined;
}

/** Builds the access middleware of one operation. */
export function accessControl(policy: AccessPolicy, access: AccessServices): RequestHandler {
  if (isPublic(policy) && policy.jobToken) {
    return async (req, res, next) => {
      const decision = await access.rateLimits.consume('job_token', req.ip || 'unknown');
      for (const [k, v] of Object.entries(rateLimitHeaders(decision))) res.setHeader(k, v);
      if (!decision.allowed) throw new RateLimitedError(decision);
      next();
    };
  }
  if (isPublic(policy)) return (_req, _res, next) => next();
  return async (req, res, next) => {
    const adminHeader = req.get('x-admin-key');
    const studioToken = req.get('x-studio-token');
    let caller: Caller;
    if (policy.admin && adminHeader !== undefined) {
      access.admin.verify(adminHeader);
      caller = { method: 'admin' };
    } else if (policy.studio && studioToken !== undefined) {
      const principal = await access.studio.authenticate(studioToken);
      if (policy.studioRole === 'admin' && principal.user.role !== 'admin') throw new TtsError('STUDIO_ADMIN_REQUIRED');
      // What costs is counted per user (every session of the user together); editing per session.
      const profile = policy.studioRole === 'admin' ? 'studio_edit' : policy.studioRateProfile;
      const subject = profile === 'studio_edit' ? principal.sessionId : principal.user.userId;
      const decision = await access.rateLimits.consume(profile, subject);
      for (const [k, v] of Object.entries(rateLimitHeaders(decision))) res.setHeader(k, v);
      if (!decision.allowed) throw new RateLimitedError(decision);
      res.locals.rateLimit = decision;
      caller = { method: 'studio', principal, rateProfile: profile, subject };
    } else if (policy.anonymous && !(policy.apiKey && apiKeyOf(req, policy) !== undefined)) {
      // No credential given (a key given where one is accepted is checked below, like anywhere else).
      caller = { method: 'public' };
    } else if (!policy.apiKey && !policy.challenge) {
      // A studio operation without a session; or an administrator operation: a key or a pass does
      // not make an administrator.
      if (policy.studio && !policy.admin) throw new TtsError('STUDIO_SESSION_MISSING');
      throw new TtsError('AUTH_ADMIN_REQUIRED');
    } else {
      const apiKey = apiKeyOf(req, policy);
      const streamToken = policy.streamToken && apiKey === undefined ? streamTokenOf(req) : undefined;
      const credentials = { apiKey, cookie: req.get('cookie'), clientBinding: req.get('user-agent') ?? '' };
      const principal = streamToken !== undefined
        ? await access.streamTokens.redeem(streamToken)
        : policy.challenge ? await access.authenticator.authenticate(credentials) : await access.authenticator.withApiKey(apiKey);
      caller = principal;
      const decision = await access.rateLimits.consume(principal.rateProfile, principal.subject, principal.method === 'api_key' ? principal.key.ratePerMinute : undefined);
      for (const [k, v] of Object.entries(rateLimitHeaders(decision))) res.setHeader(k, v);
      if (!decision.allowed) throw new RateLimitedError(decision);
      res.locals.rateLimit = decision;
    }
    res.locals.caller = caller;
    next();
  };
}

/**
 * Counts a call of a public operation against the `public` profile by client address (e.g. the
 * challenge endpoints, so one client cannot farm passes); sets the RateLimit-* headers.
 */
export async function enforcePublicRate(res: Response, access: AccessServices, clientAddress: string): Promise<void> {
  const decision = await access.rateLimits.consume('public', clientAddress || 'unknown');
  for (const [k, v] of Object.entries(rateLimitHeaders(decision))) res.setHeader(k, v);
  if (!decision.allowed) throw new RateLimitedError(decision);
}
