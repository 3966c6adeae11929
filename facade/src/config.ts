/**
 * Facade configuration, read once from the environment and frozen.
 */
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError, DEFAULT_MAX_UPLOAD_BYTES, envBool, envEnum, envInt, envNumber, envOptional, envString, envLogLevel, readGrpcTlsConfig, type GrpcTlsConfig, type LogLevel } from '@tts/common';
import { ROUTING_POLICIES, type RoutingPolicyName } from '@tts/common/routing';
import { parseAuthMode, parseTierConcurrency, parseTierRates, parseTierSessions, TIER_CONCURRENCY_VARIABLE, TIER_RATE_VARIABLE, TIER_SESSIONS_VARIABLE, type AuthMode } from './identity/index.js';
import { MAX_SESSION_INACTIVITY_SEC } from './realtime/session-limits.js';
import { parseAddressRanges, parseTrustedProxies, type AddressRanges, type TrustedProxies } from './middleware/client-address.js';
import { CORS_ORIGINS_VARIABLE, parseCorsOrigins } from './middleware/cors.js';
import { parseObjectives, type SloObjectives } from './operations/slo/objectives.js';

/** Configuration of the REST/OpenAI facade. */
export interface FacadeConfig {
  /** Lowest level written: debug, info, warn or error. @default "info" (LOG_LEVEL) */
  readonly logLevel: LogLevel;
  /** TLS / mutual TLS of its gRPC servers and clients; undefined = plaintext (TTS_GRPC_TLS_*, see README). */
  readonly grpcTls: GrpcTlsConfig | undefined;
  /** Commit the build was made from, reported by GET /api/system/version. @default null (GIT_COMMIT) */
  readonly gitCommit: string | null;
  /** HTTP port; 0 picks a free one. @default 8080 (PORT) */
  readonly port: number;
  /** Interface to listen on. @default "0.0.0.0" (HOST) */
  readonly host: string;
  /** Scheduler gRPC address: host:port, or "unix:/path" for a Unix domain socket. @default "127.0.0.1:50051" (SCHEDULER_ADDRESS) */
  readonly schedulerAddress: string;
  /** The platform components' token the scheduler requires, sent with every call to it. (TTS_INTERNAL_TOKEN) */
  readonly internalToken: string | undefined;
  /** Deadline of one synchronous synthesis, ms. @default 120000 (TTS_REQUEST_TIMEOUT_MS) */
  readonly requestTimeoutMs: number;
  /**
   * Admission of synchronous syntheses: a request whose estimated queue wait plus synthesis exceeds
   * this share of TTS_REQUEST_TIMEOUT_MS is refused at once with 503 TTS_OVERLOADED and Retry-After.
   * @default true (TTS_ADMISSION)
   */
  readonly admission: boolean;
  /** The share of the deadline admission lets the estimate fill (0.1 to 1). @default 0.8 (TTS_ADMISSION_BUDGET_SHARE) */
  readonly admissionBudgetShare: number;
  /**
   * Longest a client may take to send a request's headers, ms (Node's `headersTimeout`); past it the
   * connection is answered 408 and closed. At most TTS_HTTP_REQUEST_TIMEOUT_MS. @default 10000 (TTS_HTTP_HEADERS_TIMEOUT_MS)
   */
  readonly httpHeadersTimeoutMs: number;
  /**
   * Longest a client may take to send a whole request, headers and body, ms (Node's
   * `requestTimeout`): receiving only, never the answer, so long audio and event streams are not
   * cut. @default 300000 (TTS_HTTP_REQUEST_TIMEOUT_MS)
   */
  readonly httpRequestTimeoutMs: number;
  /**
   * How long an idle keep-alive connection is kept for its next request, ms; longer than the idle
   * time-out of a load balancer in front (60 s on common ones), so the balancer never reuses a
   * connection the facade is closing. @default 65000 (TTS_HTTP_KEEP_ALIVE_TIMEOUT_MS)
   */
  readonly httpKeepAliveTimeoutMs: number;
  /**
   * Slowest a request body may arrive while the facade reads it, bytes per second averaged over each
   * TTS_BODY_RATE_WINDOW_MS; slower: 408 REQUEST_BODY_TOO_SLOW and the connection closed. 0 = no
   * floor. @default 1024 (TTS_MIN_BODY_BYTES_PER_SEC)
   */
  readonly minBodyBytesPerSec: number;
  /** Window over which the body rate is measured, ms. @default 10000 (TTS_BODY_RATE_WINDOW_MS) */
  readonly bodyRateWindowMs: number;
  /**
   * Most open connections from one TCP peer address; a connection over it is closed at once,
   * unanswered. Peers that are trusted proxies (TTS_TRUSTED_PROXIES; every peer with a hop count)
   * or in TTS_CONNECTION_CAP_EXEMPT are not counted. 0 = no cap. @default 64 (TTS_MAX_CONNECTIONS_PER_ADDRESS)
   */
  readonly maxConnectionsPerAddress: number;
  /**
   * Peer addresses and ranges the connection cap does not count: by default loopback, where the
   * peer is the machine itself (a reverse proxy on the same host, which carries every client, the
   * benches' load generators); "none" counts every peer. @default "127.0.0.0/8,::1" (TTS_CONNECTION_CAP_EXEMPT)
   */
  readonly connectionCapExempt: AddressRanges;
  /**
   * Long-lived streams (operations marked `x-long-lived` in the OpenAPI document: the log stream)
   * one credential may hold open at once on this replica; one more answers 429
   * STREAM_LIMIT_EXCEEDED. @default 4 (TTS_MAX_STREAMS_PER_CREDENTIAL)
   */
  readonly maxStreamsPerCredential: number;
  /**
   * Largest message a client may send on a WebSocket operation, bytes; a larger one closes the
   * socket with 1009 (message too big). @default 65536 (TTS_WS_MAX_MESSAGE_BYTES)
   */
  readonly wsMaxMessageBytes: number;
  /** Largest JSON body, bytes. @default 1048576 (TTS_MAX_BODY_BYTES) */
  readonly maxBodyBytes: number;
  /** Longest `text` of POST /api/tts. @default 10000 (TTS_MAX_TEXT_CHARS) — the OpenAPI document states the same bound. */
  readonly maxTextChars: number;
  /** Default voice reported by health and capabilities. @default "festival:slt" (TTS_DEFAULT_VOICE) */
  readonly defaultVoice: string;
  /** Where data lives. @default "./data" (DATA_DIR) */
  readonly dataDir: string;
  /** External PostgreSQL; none = embedded PGlite. (DATABASE_URL) */
  readonly databaseUrl: string | undefined;
  /** External Redis; none = in-process. (REDIS_URL) */
  readonly redisUrl: string | undefined;
  /** Validate JSON responses against the OpenAPI document (tests; costs time). @default false (TTS_VALIDATE_RESPONSES) */
  readonly validateResponses: boolean;
  /** Retries of a synchronous synthesis on another node after a retryable failure. @default 1 (TTS_SYNTH_RETRIES) */
  readonly synthRetries: number;
  /** How the facade picks the node of a synchronous synthesis; the scheduler's variable, so both agree. @default "least-loaded" (SCHEDULER_ROUTING) */
  readonly routing: RoutingPolicyName;
  /** How often the facade refreshes its routing view of the nodes from the scheduler (ListNodes), ms. @default 250 (TTS_ROUTING_REFRESH_MS) */
  readonly routingRefreshMs: number;
  /** Credentials accepted by caller operations. @default "api_key_or_challenge" (TTS_AUTH_MODE) */
  readonly authMode: AuthMode;
  /** Administrator key; unset in embedded mode = generated under DATA_DIR and printed once. (TTS_ADMIN_KEY) */
  readonly adminKey: string | undefined;
  /** HMAC key of the anti-bot challenge; unset = generated once and shared through the database. (TTS_CHALLENGE_SECRET) */
  readonly challengeSecret: string | undefined;
  /**
   * Key of the provenance payloads (HMAC of each request id; 32+ characters); unset = generated once
   * and shared through the database. (TTS_PROVENANCE_SECRET)
   */
  readonly provenanceSecret: string | undefined;
  /**
   * Calls per minute of the keys of a tier, by tier name: `pro=1200,enterprise=6000` (integers from 1
   * to 100000, above or below the api_key profile's 360). A key's own `rate_limit_per_minute` still
   * overrides its tier's. @default none: every tier at 360 (TTS_TIER_RATE_PER_MINUTE)
   */
  readonly tierRates: Readonly<Record<string, number>>;
  /**
   * Synchronous syntheses a key of a tier may have in flight at once, by tier name: `pro=8` (integers
   * from 1 to 1000); more are refused with 429 TTS_CONCURRENCY_LIMIT. Also the key's weight in the
   * nodes' fair sharing of an engine. @default none: free 2, pro 10, enterprise 32 (TTS_TIER_CONCURRENCY)
   */
  readonly tierConcurrency: Readonly<Record<string, number>>;
  /**
   * Streaming sessions (WebSocket, Wyoming) a key of a tier may hold open at once, by tier name:
   * `pro=32` (integers from 1 to 10000); more are refused with 429 SESSION_LIMIT_EXCEEDED.
   * @default none: free 2, pro 16, enterprise 128 (TTS_TIER_SESSIONS)
   */
  readonly tierSessions: Readonly<Record<string, number>>;
  /**
   * Seconds a streaming session may stay without a message from its client before it is closed;
   * a client may ask for more (ElevenLabs' `inactivity_timeout`), up to 180. @default 20
   * (TTS_SESSION_INACTIVITY_TIMEOUT_SEC)
   */
  readonly sessionInactivityTimeoutSec: number;
  /** Leading zero bits the proof of work needs. @default 18 (TTS_CHALLENGE_DIFFICULTY) */
  readonly challengeDifficulty: number;
  /** PostgreSQL schema of the facade's tables. @default "public" (TTS_DB_SCHEMA) */
  readonly dbSchema: string;
  /** Prefix of every Redis key (keys are "<prefix>:..."). @default "tts" (TTS_KV_PREFIX) */
  readonly kvPrefix: string;
  /**
   * Proxies whose X-Forwarded-For names the client (rate limits, login throttling, passes): a hop
   * count ("1" behind one ingress) or addresses and CIDR ranges ("10.0.0.0/8,fd00::/8"). Unset: none,
   * not even on loopback; the TCP peer is the client. @default none (TTS_TRUSTED_PROXIES)
   */
  readonly trustedProxies: TrustedProxies;
  /**
   * Origins (scheme://host[:port]) whose pages may call the API from a browser (CORS, without
   * credentials: see middleware/cors.ts). @default none: same origin only (TTS_CORS_ORIGINS)
   */
  readonly corsOrigins: readonly string[];
  /**
   * Mark the challenge pass cookie Secure on every request; without it, only requests that came over
   * HTTPS (`req.secure`: TLS, or `X-Forwarded-Proto: https` from a trusted proxy) get Secure.
   * @default false (TTS_SECURE_COOKIES)
   */
  readonly secureCookies: boolean;
  /** Keep the embedded database in memory instead of DATA_DIR (tests, demos). @default false (TTS_EPHEMERAL) */
  readonly ephemeral: boolean;
  /** Lifetime of a web job token, seconds. @default 86400 (TTS_JOB_TOKEN_TTL_SEC) */
  readonly jobTokenTtlSec: number;
  /**
   * Window in which repeated job-token denials of one client address for one job are one job access
   * audit record (the first at once, the repeats with their count when the window closes), ms;
   * 0 = one record per denial. @default 60000 (TTS_AUDIT_DENIAL_WINDOW_MS)
   */
  readonly auditDenialWindowMs: number;
  /** SLO objectives and alerting guard (JSON). @default 99.9 %, p95 1 s (synthesis 5 s), 50 requests (TTS_SLO_OBJECTIVES) */
  readonly sloObjectives: SloObjectives;
  /** Age after which SLI rows are deleted, days (the dashboard reaches 7 days back, alerts 3 more). @default 10 (TTS_SLO_RETENTION_DAYS) */
  readonly sloRetentionDays: number;
  /** Age after which audio artifacts under DATA_DIR/artifacts are deleted, hours; 0 = never. @default 168 (TTS_ARTIFACT_RETENTION_HOURS) */
  readonly artifactRetentionHours: number;
  /** Minutes between automatic cleanup runs; 0 = only POST /api/system/cleanup/run. @default 60 (TTS_CLEANUP_INTERVAL_MIN) */
  readonly cleanupIntervalMinutes: number;
  /** Longest a usage or consent record waits before it is written (batched, behind the response): what a crash can lose, ms. @default 1000 (TTS_METERING_FLUSH_MS) */
  readonly meteringFlushMs: number;
  /**
   * How long API key records and quota figures are reused before the database is read again, ms;
   * 0 = every request. Changes made through this facade apply at once; other replicas see them
   * after this long. @default 2000 with DATABASE_URL; 60000 embedded, where this facade is the
   * database's only writer (TTS_IDENTITY_CACHE_MS)
   */
  readonly identityCacheMs: number | undefined;
  /** Largest uploaded file (reference audio, watermark detection), bytes; the nodes' TTS_MAX_UPLOAD_BYTES should match. @default 26214400 (TTS_MAX_UPLOAD_BYTES) */
  readonly maxUploadBytes: number;
  /**
   * Folder of uploads' temporary files (0600, each removed when its response ends); made private
   * (0700) at start, which fails when another user owns it. @default "<os tmpdir>/tts-uploads" (TTS_UPLOAD_TMP_DIR)
   */
  readonly uploadTmpDir: string;
  /** The built web application served at `/` (`npm run build` makes it). @default "<repo>/web/dist" (TTS_WEB_DIR) */
  readonly webDir: string;
  /** Deadline of one analysis call (reference validation, transcription, detection), ms. @default 120000 (TTS_ANALYSIS_TIMEOUT_MS) */
  readonly analysisTimeoutMs: number;
  /** How long a stored reference clip is kept after its upload, hours. @default 24 (TTS_REFERENCE_RETENTION_HOURS) */
  readonly referenceRetentionHours: number;
  /** Longest clip stored for reuse by its reference_id, seconds (longer clips are validated, not stored). @default 30 (TTS_REFERENCE_MAX_STORED_SEC) */
  readonly referenceMaxStoredSec: number;
  /** Model hub the hub-token operations validate against (`GET <url>/api/whoami-v2`). @default "https://huggingface.co" (TTS_MODEL_HUB_URL) */
  readonly hubUrl: string;
  /**
   * Key (32 bytes, 64 hex digits or base64) the model-hub token is encrypted with at rest; every
   * replica needs the same. Unset embedded: generated into DATA_DIR/hub-token.key (0600); unset with
   * DATABASE_URL: tokens cannot be stored (HUB_TOKEN_KEY_MISSING). (TTS_HUB_TOKEN_KEY)
   */
  readonly hubTokenKey: string | undefined;
  /**
   * Slip-verification provider of VIP payments (the SlipOK API: `POST <url>/api/line/apikey/<branch>`).
   * Unset: every slip waits for an administrator. @default undefined (TTS_SLIP_PROVIDER_URL)
   */
  readonly slipProviderUrl: string | undefined;
  /** The provider's API key (sent as `x-authorization`). (TTS_SLIP_PROVIDER_KEY) */
  readonly slipProviderKey: string | undefined;
  /** The provider's branch id. (TTS_SLIP_PROVIDER_BRANCH) */
  readonly slipProviderBranch: string | undefined;
  /** How long a slip check may take before the request waits for an administrator. @default 10000 (TTS_SLIP_PROVIDER_TIMEOUT_MS) */
  readonly slipProviderTimeoutMs: number;
  /**
   * Have I Been Pwned "Pwned Passwords" range API new studio passwords are checked against (only the
   * first 5 hex digits of their SHA-1 are sent). `none`: off, nothing is sent anywhere; internet-facing
   * deployments should set https://api.pwnedpasswords.com. @default undefined ("none") (TTS_PWNED_PASSWORDS_URL)
   */
  readonly pwnedPasswordsUrl: string | undefined;
  /** How long the range request may take before the password is judged on the local checks alone, ms. @default 2000 (TTS_PWNED_PASSWORDS_TIMEOUT_MS) */
  readonly pwnedPasswordsTimeoutMs: number;
}

/** An http(s) base URL without query or fragment (trailing slash dropped), or `none` -> undefined. */
function parseProviderUrl(value: string, name: string): string | undefined {
  if (value === 'none') return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(name, `must be an http(s) URL or none, got ${JSON.stringify(value)}`);
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
    throw new ConfigError(name, `must be an http(s) URL without query, fragment or credentials, or none, got ${JSON.stringify(value)}`);
  }
  return url.href.replace(/\/+$/, '');
}

/** Reads the facade configuration; throws ConfigError naming a bad variable. */
export function loadFacadeConfig(env: NodeJS.ProcessEnv = process.env): FacadeConfig {
  return checkFacadeConfig(Object.freeze({
    logLevel: envLogLevel(env),
    grpcTls: readGrpcTlsConfig(env),
    gitCommit: envOptional(env, 'GIT_COMMIT') ?? null,
    port: envInt(env, 'PORT', 8080, { min: 0, max: 65535 }),
    host: envString(env, 'HOST', '0.0.0.0'),
    schedulerAddress: envString(env, 'SCHEDULER_ADDRESS', '127.0.0.1:50051'),
    internalToken: envOptional(env, 'TTS_INTERNAL_TOKEN'),
    requestTimeoutMs: envInt(env, 'TTS_REQUEST_TIMEOUT_MS', 120_000, { min: 100, max: 3_600_000 }),
    admission: envBool(env, 'TTS_ADMISSION', true),
    admissionBudgetShare: envNumber(env, 'TTS_ADMISSION_BUDGET_SHARE', 0.8, { min: 0.1, max: 1 }),
    httpHeadersTimeoutMs: envInt(env, 'TTS_HTTP_HEADERS_TIMEOUT_MS', 10_000, { min: 1000, max: 300_000 }),
    httpRequestTimeoutMs: envInt(env, 'TTS_HTTP_REQUEST_TIMEOUT_MS', 300_000, { min: 1000, max: 3_600_000 }),
    httpKeepAliveTimeoutMs: envInt(env, 'TTS_HTTP_KEEP_ALIVE_TIMEOUT_MS', 65_000, { min: 1000, max: 600_000 }),
    minBodyBytesPerSec: envInt(env, 'TTS_MIN_BODY_BYTES_PER_SEC', 1024, { min: 0, max: 100 * 1024 * 1024 }),
    bodyRateWindowMs: envInt(env, 'TTS_BODY_RATE_WINDOW_MS', 10_000, { min: 1000, max: 300_000 }),
    maxConnectionsPerAddress: envInt(env, 'TTS_MAX_CONNECTIONS_PER_ADDRESS', 64, { min: 0, max: 100_000 }),
    connectionCapExempt: parseAddressRanges(envString(env, 'TTS_CONNECTION_CAP_EXEMPT', '127.0.0.0/8,::1'), 'TTS_CONNECTION_CAP_EXEMPT'),
    maxStreamsPerCredential: envInt(env, 'TTS_MAX_STREAMS_PER_CREDENTIAL', 4, { min: 1, max: 1000 }),
    wsMaxMessageBytes: envInt(env, 'TTS_WS_MAX_MESSAGE_BYTES', 64 * 1024, { min: 1024, max: 16 * 1024 * 1024 }),
    maxBodyBytes: envInt(env, 'TTS_MAX_BODY_BYTES', 1024 * 1024, { min: 1024, max: 512 * 1024 * 1024 }),
    maxTextChars: envInt(env, 'TTS_MAX_TEXT_CHARS', 10_000, { min: 1, max: 10_000 }),
    defaultVoice: envString(env, 'TTS_DEFAULT_VOICE', 'festival:slt'),
    dataDir: envString(env, 'DATA_DIR', './data'),
    databaseUrl: envOptional(env, 'DATABASE_URL'),
    redisUrl: envOptional(env, 'REDIS_URL'),
    validateResponses: envBool(env, 'TTS_VALIDATE_RESPONSES', false),
    synthRetries: envInt(env, 'TTS_SYNTH_RETRIES', 1, { min: 0, max: 5 }),
    routing: envEnum(env, 'SCHEDULER_ROUTING', ROUTING_POLICIES, 'least-loaded'),
    routingRefreshMs: envInt(env, 'TTS_ROUTING_REFRESH_MS', 250, { min: 10, max: 60_000 }),
    authMode: parseAuthMode(envOptional(env, 'TTS_AUTH_MODE')),
    adminKey: envOptional(env, 'TTS_ADMIN_KEY'),
    challengeSecret: envOptional(env, 'TTS_CHALLENGE_SECRET'),
    provenanceSecret: envOptional(env, 'TTS_PROVENANCE_SECRET'),
    tierRates: parseTierRates(envOptional(env, TIER_RATE_VARIABLE)),
    tierConcurrency: parseTierConcurrency(envOptional(env, TIER_CONCURRENCY_VARIABLE)),
    tierSessions: parseTierSessions(envOptional(env, TIER_SESSIONS_VARIABLE)),
    sessionInactivityTimeoutSec: envInt(env, 'TTS_SESSION_INACTIVITY_TIMEOUT_SEC', 20, { min: 1, max: MAX_SESSION_INACTIVITY_SEC }),
    challengeDifficulty: envInt(env, 'TTS_CHALLENGE_DIFFICULTY', 18, { min: 1, max: 32 }),
    dbSchema: envString(env, 'TTS_DB_SCHEMA', 'public'),
    kvPrefix: envString(env, 'TTS_KV_PREFIX', 'tts'),
    trustedProxies: parseTrustedProxies(envOptional(env, 'TTS_TRUSTED_PROXIES')),
    corsOrigins: parseCorsOrigins(envOptional(env, CORS_ORIGINS_VARIABLE)),
    secureCookies: envBool(env, 'TTS_SECURE_COOKIES', false),
    ephemeral: envBool(env, 'TTS_EPHEMERAL', false),
    jobTokenTtlSec: envInt(env, 'TTS_JOB_TOKEN_TTL_SEC', 86_400, { min: 60, max: 30 * 86_400 }),
    auditDenialWindowMs: envInt(env, 'TTS_AUDIT_DENIAL_WINDOW_MS', 60_000, { min: 0, max: 3_600_000 }),
    sloObjectives: parseObjectives(envOptional(env, 'TTS_SLO_OBJECTIVES')),
    sloRetentionDays: envInt(env, 'TTS_SLO_RETENTION_DAYS', 10, { min: 1, max: 3650 }),
    artifactRetentionHours: envInt(env, 'TTS_ARTIFACT_RETENTION_HOURS', 168, { min: 0, max: 24 * 3650 }),
    cleanupIntervalMinutes: envInt(env, 'TTS_CLEANUP_INTERVAL_MIN', 60, { min: 0, max: 7 * 24 * 60 }),
    meteringFlushMs: envInt(env, 'TTS_METERING_FLUSH_MS', 1000, { min: 1, max: 60_000 }),
    maxUploadBytes: envInt(env, 'TTS_MAX_UPLOAD_BYTES', DEFAULT_MAX_UPLOAD_BYTES, { min: 1024, max: 1024 * 1024 * 1024 }),
    uploadTmpDir: path.resolve(envString(env, 'TTS_UPLOAD_TMP_DIR', path.join(tmpdir(), 'tts-uploads'))),
    webDir: path.resolve(envString(env, 'TTS_WEB_DIR', fileURLToPath(new URL('../../web/dist', import.meta.url)))),
    analysisTimeoutMs: envInt(env, 'TTS_ANALYSIS_TIMEOUT_MS', 120_000, { min: 1000, max: 3_600_000 }),
    referenceRetentionHours: envInt(env, 'TTS_REFERENCE_RETENTION_HOURS', 24, { min: 1, max: 24 * 365 }),
    referenceMaxStoredSec: envInt(env, 'TTS_REFERENCE_MAX_STORED_SEC', 30, { min: 10, max: 600 }),
    hubUrl: envString(env, 'TTS_MODEL_HUB_URL', 'https://huggingface.co'),
    hubTokenKey: envOptional(env, 'TTS_HUB_TOKEN_KEY'),
    slipProviderUrl: envOptional(env, 'TTS_SLIP_PROVIDER_URL'),
    slipProviderKey: envOptional(env, 'TTS_SLIP_PROVIDER_KEY'),
    slipProviderBranch: envOptional(env, 'TTS_SLIP_PROVIDER_BRANCH'),
    slipProviderTimeoutMs: envInt(env, 'TTS_SLIP_PROVIDER_TIMEOUT_MS', 10_000, { min: 100, max: 120_000 }),
    pwnedPasswordsUrl: parseProviderUrl(envString(env, 'TTS_PWNED_PASSWORDS_URL', 'none'), 'TTS_PWNED_PASSWORDS_URL'),
    pwnedPasswordsTimeoutMs: envInt(env, 'TTS_PWNED_PASSWORDS_TIMEOUT_MS', 2000, { min: 100, max: 30_000 }),
    identityCacheMs: envOptional(env, 'TTS_IDENTITY_CACHE_MS') === undefined ? undefined : envInt(env, 'TTS_IDENTITY_CACHE_MS', 0, { min: 0, max: 600_000 }),
  }));
}

/** Checks what no single variable's bounds can (also for start()'s overrides); returns `config`. */
export function checkFacadeConfig<C extends Pick<FacadeConfig, 'httpHeadersTimeoutMs' | 'httpRequestTimeoutMs'>>(config: C): C {
  // Node refuses a headers time-out longer than the request's.
  if (config.httpHeadersTimeoutMs > config.httpRequestTimeoutMs) {
    throw new ConfigError('TTS_HTTP_HEADERS_TIMEOUT_MS', `must not exceed TTS_HTTP_REQUEST_TIMEOUT_MS (${config.httpRequestTimeoutMs}), got ${config.httpHeadersTimeoutMs}`);
  }
  return config;
}
