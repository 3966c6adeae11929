/**
 * The JSON shapes of the identity operations (snake_case, as the interface uses) and the parsers of
 * their request bodies. Handlers call a service, then one of these; nothing here reads a secret
 * other than the created key, which `createdApiKeyView` returns that once.
 */
import type { ApiKeyRecord, ConsentRecord, JobAccessRecord } from '../data/index.js';
import type { RateLimitRule } from '@tts/common/kv';
import { TtsError } from '@tts/common';
import type { ApiKeyPatch, CreateApiKeyInput, CreatedApiKey } from './api-keys.js';
import type { AuditReport } from './audits.js';
import { AUTH_MODES, type AuthMode } from './authenticator.js';
import { CHALLENGE_COOKIE, type ChallengeService, type IssuedChallenge, type IssuedPass } from './challenge.js';
import type { QuotaStatus, QuotaWindow } from './quotas.js';
import type { RateProfile } from './rate-limits.js';
import { DEFAULT_TIER, TIERS, type Tier } from './tiers.js';
import type { CostDashboardReport, UsageSummaryReport } from './usage.js';

/** Path that issues a challenge (GET) and redeems a solution (POST, form fields challenge and solution). */
export const CHALLENGE_PATH = '/api/auth/challenge';

type Json = string | number | boolean | null | readonly Json[] | { readonly [key: string]: Json };

/** A JSON object. */
export type JsonObject = { readonly [key: string]: Json };

const iso = (d: Date): string => d.toISOString();

/** An API key as listed (never a secret or hash). */
export function apiKeyView(record: ApiKeyRecord): JsonObject {
  return {
    key_id: record.keyId,
    name: record.name,
    prefix: record.prefix,
    tier: record.tier,
    disabled: record.disabled,
    daily_char_quota: record.dailyCharQuota,
    monthly_char_quota: record.monthlyCharQuota,
    rate_limit_per_minute: record.rateLimitPerMinute,
    created_at: iso(record.createdAt),
    updated_at: iso(record.updatedAt),
  };
}

/** A created key: the listed fields plus `api_key`, the secret key string shown this once. */
export function createdApiKeyView(created: CreatedApiKey): JsonObject {
  return { ...apiKeyView(created.record), api_key: created.apiKey };
}

/** One tier. */
export function tierView(tier: Tier): JsonObject {
  return {
    name: tier.name,
    rate_per_minute: tier.ratePerMinute,
    daily_char_quota: tier.dailyCharQuota,
    monthly_char_quota: tier.monthlyCharQuota,
    max_text_length: tier.maxTextLength,
    concurrent_jobs: tier.concurrentJobs,
    concurrent_requests: tier.concurrentRequests,
    concurrent_sessions: tier.concurrentSessions,
    price_per_million_chars_usd: tier.pricePerMillionCharsUsd,
  };
}

/** GET /api/auth/tiers. */
export function tiersView(tiers: readonly Tier[] = TIERS): JsonObject {
  return { default_tier: DEFAULT_TIER, tiers: tiers.map(tierView) };
}

const windowView = (w: QuotaWindow): JsonObject => ({ used: w.used, limit: w.limit, stage: w.stage, reset_unix: w.resetUnix });

/** A key's quota status. */
export function quotaView(status: QuotaStatus): JsonObject {
  return { stage: status.stage, daily: windowView(status.daily), monthly: windowView(status.monthly) };
}

/** GET /api/auth/challenge. */
export function challengeView(issued: IssuedChallenge): JsonObject {
  return {
    challenge_id: issued.challengeId,
    challenge: issued.challenge,
    algorithm: issued.algorithm,
    difficulty_bits: issued.difficultyBits,
    expires_unix: issued.expiresUnix,
    solution_rule: 'sha256(challenge + ":" + solution) starts with difficulty_bits zero bits; solution is 1-64 chars of [A-Za-z0-9_-]',
  };
}

/** POST /api/auth/challenge (the pass itself travels in the Set-Cookie header only). */
export function passView(pass: IssuedPass): JsonObject {
  return { ok: true, expires_unix: pass.expiresUnix, cookie: CHALLENGE_COOKIE };
}

/** Options of `authConfigView`. */
export interface AuthConfigViewOptions {
  readonly mode: AuthMode;
  readonly challenge: ChallengeService;
  readonly profiles: Readonly<Record<RateProfile, RateLimitRule>>;
}

/** GET /api/auth/config: the mode, the accepted credentials and the rate profiles. */
export function authConfigView(options: AuthConfigViewOptions): JsonObject {
  const profiles: Record<string, Json> = {};
  for (const [name, rule] of Object.entries(options.profiles)) profiles[name] = { limit: rule.limit, window_sec: rule.windowSec };
  return {
    mode: options.mode,
    modes: [...AUTH_MODES],
    methods: [
      { method: 'api_key', header: 'X-API-Key', rate_profile: 'api_key', enabled: true },
      { method: 'challenge', cookie: CHALLENGE_COOKIE, rate_profile: 'challenge', enabled: options.mode === 'api_key_or_challenge' },
      { method: 'studio', header: 'X-Studio-Token', rate_profile: 'studio', enabled: true },
    ],
    admin_header: 'X-Admin-Key',
    profiles,
    challenge: {
      path: CHALLENGE_PATH,
      algorithm: 'sha256',
      difficulty_bits: options.challenge.difficultyBits,
      ttl_sec: options.challenge.challengeTtlSec,
      pass_ttl_sec: options.challenge.passTtlSec,
    },
  };
}

/** GET /api/usage/summary. */
export function usageSummaryView(report: UsageSummaryReport): JsonObject {
  return {
    day_from: report.dayFrom,
    day_to: report.dayTo,
    limit: report.limit,
    total_groups: report.totalGroups,
    truncated: report.truncated,
    totals: {
      requests: report.totals.requests,
      ok_requests: report.totals.okRequests,
      failed_requests: report.totals.failedRequests,
      characters: report.totals.characters,
      audio_seconds: report.totals.audioSeconds,
    },
    rows: report.rows.map((r) => ({
      day: r.day,
      key_id: r.keyId,
      endpoint: r.endpoint,
      requests: r.requests,
      ok_requests: r.okRequests,
      failed_requests: r.failedRequests,
      characters: r.characters,
      audio_seconds: r.audioSeconds,
      avg_latency_ms: r.avgLatencyMs,
      p50_latency_ms: r.p50LatencyMs,
      p95_latency_ms: r.p95LatencyMs,
    })),
  };
}

/** GET /api/usage/cost-dashboard. */
export function costDashboardView(report: CostDashboardReport): JsonObject {
  return {
    day_from: report.dayFrom,
    day_to: report.dayTo,
    limit: report.limit,
    total_groups: report.totalGroups,
    truncated: report.truncated,
    totals: { requests: report.totals.requests, characters: report.totals.characters, audio_minutes: report.totals.audioMinutes, cost_usd: report.totals.costUsd },
    by_tier: report.byTier.map((t) => ({ tier: t.tier, requests: t.requests, characters: t.characters, audio_minutes: t.audioMinutes, cost_usd: t.costUsd })),
    rows: report.rows.map((r) => ({
      key_id: r.keyId,
      key_name: r.keyName,
      tier: r.tier,
      requests: r.requests,
      characters: r.characters,
      audio_minutes: r.audioMinutes,
      cost_usd: r.costUsd,
      quota_stage: r.quota?.stage ?? null,
      quota: r.quota === null ? null : quotaView(r.quota),
    })),
  };
}

/** An audit report's body: its window and counts, and each record as `recordView` shows it. */
function auditReportView<R>(report: AuditReport<R>, recordView: (r: R) => JsonObject): JsonObject {
  return {
    day_from: report.dayFrom,
    day_to: report.dayTo,
    limit: report.limit,
    total: report.total,
    truncated: report.truncated,
    records: report.records.map(recordView),
  };
}

/** GET /api/usage/job-access-audit. */
export function jobAccessAuditView(report: AuditReport<JobAccessRecord>): JsonObject {
  return auditReportView(report, (r) => ({
    id: r.id,
    created_at: iso(r.createdAt),
    request_id: r.requestId,
    endpoint: r.endpoint,
    job_id: r.jobId,
    requester_kind: r.requesterKind,
    requester_key_id: r.requesterKeyId,
    owner_key_id: r.ownerKeyId,
    allowed: r.allowed,
    reason: r.reason,
    attempts: r.attempts,
    client_address: r.clientAddress,
  }));
}

/** GET /api/compliance/consent-audit. */
export function consentAuditView(report: AuditReport<ConsentRecord>): JsonObject {
  return auditReportView(report, (r) => ({
    id: r.id,
    created_at: iso(r.createdAt),
    request_id: r.requestId,
    endpoint: r.endpoint,
    mode: r.mode,
    auth_method: r.authMethod,
    key_id: r.keyId,
    consent_confirmed: r.consentConfirmed,
    outcome: r.outcome,
    error_code: r.errorCode,
  }));
}

function bodyObject(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new TtsError('VALIDATION_FAILED', 'The body must be a JSON object.', { loc: ['body'] });
  return body as Record<string, unknown>;
}

function optionalString(body: Record<string, unknown>, field: string): string | undefined {
  const v = body[field];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw new TtsError('VALIDATION_FAILED', `${field} must be a string.`, { loc: ['body', field] });
  return v;
}

/** An optional override: absent, null (the tier's) or a number (bounds are checked by the service). */
function optionalQuota(body: Record<string, unknown>, field: string): number | null | undefined {
  const v = body[field];
  if (v === undefined || v === null) return v;
  if (typeof v !== 'number') throw new TtsError('VALIDATION_FAILED', `${field} must be an integer or null.`, { loc: ['body', field] });
  return v;
}

/** The body of POST /api/auth/keys (ApiKeyCreateRequest): name (required), tier, daily_char_quota, monthly_char_quota, rate_limit_per_minute. */
export function parseApiKeyCreateRequest(body: unknown): CreateApiKeyInput {
  const b = bodyObject(body);
  const name = optionalString(b, 'name');
  if (name === undefined) throw new TtsError('VALIDATION_FAILED', 'name is required.', { loc: ['body', 'name'] });
  return {
    name,
    tier: optionalString(b, 'tier'),
    dailyCharQuota: optionalQuota(b, 'daily_char_quota'),
    monthlyCharQuota: optionalQuota(b, 'monthly_char_quota'),
    rateLimitPerMinute: optionalQuota(b, 'rate_limit_per_minute'),
  };
}

/** The body of PATCH /api/auth/keys/{key_id} (ApiKeyUpdateRequest): name, tier, disabled, daily_char_quota, monthly_char_quota, rate_limit_per_minute. */
export function parseApiKeyUpdateRequest(body: unknown): ApiKeyPatch {
  const b = bodyObject(body);
  const disabled = b['disabled'];
  if (disabled !== undefined && typeof disabled !== 'boolean') throw new TtsError('VALIDATION_FAILED', 'disabled must be a boolean.', { loc: ['body', 'disabled'] });
  return {
    name: optionalString(b, 'name'),
    tier: optionalString(b, 'tier'),
    disabled,
    dailyCharQuota: optionalQuota(b, 'daily_char_quota'),
    monthlyCharQuota: optionalQuota(b, 'monthly_char_quota'),
    rateLimitPerMinute: optionalQuota(b, 'rate_limit_per_minute'),
  };
}
