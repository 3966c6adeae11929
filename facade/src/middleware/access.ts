/**
 * Access control of one operation, derived from its `security` requirements in the OpenAPI
 * document (the single source of truth):
 * - no requirement: public;
 * - ApiKeyHeader / BearerAuth: an API key (X-API-Key, or `Authorization: Bearer` for OpenAI clients);
 * - ChallengeCookie: the anti-bot challenge pass, when the auth mode is api_key_or_challenge;
 * - AdminKey: the administrator key (X-Admin-Key).
 * The caller is counted against its rate profile (RateLimit-* headers on every answer) and stored
 * in res.locals for the handler.
 */
import type { RequestHandler, Response } from 'express';
import { TtsError } from '@tts/common';
import type { AccessServices } from '../domain/access-services.js';
import { rateLimitHeaders, RateLimitedError, type Principal } from '../identity/index.js';

/** Which credentials an operation accepts. */
export interface AccessPolicy {
  readonly apiKey: boolean;
  readonly challenge: boolean;
  readonly admin: boolean;
}

/** The authenticated caller of a request. */
export type Caller = { readonly method: 'public' } | { readonly method: 'admin' } | Principal;

/** The policy of an operation from its OpenAPI `security` array (absent or empty: public). */
export function accessPolicyOf(security: unknown): AccessPolicy {
  const schemes = new Set<string>();
  if (Array.isArray(security)) for (const req of security) if (req && typeof req === 'object') for (const k of Object.keys(req)) schemes.add(k);
  return {
    apiKey: schemes.has('ApiKeyHeader') || schemes.has('BearerAuth'),
    challenge: schemes.has('ChallengeCookie'),
    admin: schemes.has('AdminKey'),
  };
}

/** True when the policy needs no credential. */
export function isPublic(policy: AccessPolicy): boolean {
  return !policy.apiKey && !policy.challenge && !policy.admin;
}

/** The caller stored by accessControl (public when the operation is public). */
export function callerOf(res: Response): Caller {
  return res.locals.caller ?? { method: 'public' };
}

/** The tenant a synthesis is accounted to: the key or pass subject, '' for others. */
export function tenantOf(caller: Caller): string {
  return caller.method === 'api_key' || caller.method === 'challenge' ? caller.subject : '';
}

function apiKeyOf(header: string | undefined, authorization: string | undefined): string | undefined {
  if (header !== undefined) return header;
  const m = authorization === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  return m?.[1];
}

/** Builds the access middleware of one operation. */
export function accessControl(policy: AccessPolicy, access: AccessServices): RequestHandler {
  if (isPublic(policy)) return (_req, _res, next) => next();
  return async (req, res, next) => {
    const adminHeader = req.get('x-admin-key');
    let caller: Caller;
    if (policy.admin && adminHeader !== undefined) {
      access.admin.verify(adminHeader);
      caller = { method: 'admin' };
    } else if (!policy.apiKey && !policy.challenge) {
      // Administrator-only operation; a key or a pass does not make an administrator.
      throw new TtsError('AUTH_ADMIN_REQUIRED');
    } else {
      const apiKey = apiKeyOf(req.get('x-api-key'), req.get('authorization'));
      const credentials = { apiKey, cookie: req.get('cookie'), clientBinding: req.get('user-agent') ?? '' };
      caller = policy.challenge ? await access.authenticator.authenticate(credentials) : await access.authenticator.withApiKey(apiKey);
      const decision = await access.rateLimits.consume(caller.rateProfile, caller.subject, caller.method === 'api_key' ? caller.key.tier : undefined);
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
