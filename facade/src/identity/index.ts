/**
 * Identity, framework-free: API keys, the administrator key, tiers, rate limits, quotas, the
 * anti-bot challenge, usage and audits. Services take the repositories (services/common data) and
 * the Kv (services/common kv); the Express middleware and handlers stay thin on top of them.
 */
export { ADMIN_KEY_FILE, ADMIN_KEY_HEADER, ADMIN_KEY_MIN_LENGTH, AdminKeyVerifier, loadAdminKey, type LoadAdminKeyOptions, type LoadedAdminKey } from './admin-key.js';
export {
  API_KEY_HEADER,
  ApiKeyService,
  generateApiKey,
  type ApiKeyPatch,
  type ApiKeyServiceOptions,
  type AuthenticatedKey,
  type CreateApiKeyInput,
  type CreatedApiKey,
  type GeneratedApiKey,
} from './api-keys.js';
export { AuditService, type AuditReport, type ConsentAuditQuery, type JobAccessAuditQuery } from './audits.js';
export {
  AUTH_MODES,
  Authenticator,
  DEFAULT_AUTH_MODE,
  parseAuthMode,
  type AuthenticatorOptions,
  type AuthMode,
  type Principal,
  type RequestCredentials,
} from './authenticator.js';
export {
  CHALLENGE_COOKIE,
  CHALLENGE_SECRET_NAME,
  ChallengeService,
  leadingZeroBits,
  loadChallengeSecret,
  solveChallenge,
  type ChallengeServiceOptions,
  type ChallengeSolution,
  type IssuedChallenge,
  type IssuedPass,
  type LoadChallengeSecretOptions,
  type VerifiedPass,
} from './challenge.js';
export { passCookie, readCookie, type PassCookieOptions } from './cookies.js';
export {
  DEFAULT_QUOTA_POLICY,
  effectiveQuotas,
  QUOTA_STAGE_HEADER,
  QuotaExceededError,
  quotaHeaders,
  QuotaService,
  quotaStage,
  utcPeriod,
  worseStage,
  type PendingUsage,
  type QuotaPolicy,
  type QuotaServiceOptions,
  type QuotaStage,
  type QuotaStatus,
  type QuotaSubject,
  type QuotaWindow,
  type UtcPeriod,
} from './quotas.js';
export { RATE_PROFILES, RateLimitedError, rateLimitHeaders, RateLimitService, rateLimitView, type RateLimitView, type RateProfile } from './rate-limits.js';
export { MAX_FILTER_LENGTH, parseDay, parseDayRange, parseFilter, parseFlag, parseLimit, REPORT_LIMIT, type LimitBounds } from './report-query.js';
export { checkTextLength, DEFAULT_TIER, findPricedTier, findTier, STUDIO_TIERS, TIERS, type Tier } from './tiers.js';
export { parseTierConcurrency, parseTierRates, parseTierSessions, TIER_CONCURRENCY_VARIABLE, TIER_RATE_VARIABLE, TIER_SESSIONS_VARIABLE, TierTable } from './tier-table.js';
export {
  UsageService,
  type CostDashboardQuery,
  type CostDashboardReport,
  type CostDashboardRow,
  type CostTierSummary,
  type UsageServiceOptions,
  type UsageSummaryQuery,
  type UsageSummaryReport,
} from './usage.js';
export { UsageRecorder, type UsageRecorderOptions } from './usage-recorder.js';
export {
  apiKeyView,
  authConfigView,
  CHALLENGE_PATH,
  challengeView,
  consentAuditView,
  costDashboardView,
  createdApiKeyView,
  jobAccessAuditView,
  parseApiKeyCreateRequest,
  parseApiKeyUpdateRequest,
  passView,
  quotaView,
  tiersView,
  tierView,
  usageSummaryView,
  type AuthConfigViewOptions,
  type JsonObject,
} from './identity-views.js';
