/**
 * Opens the facade's storage (PostgreSQL or embedded PGlite), key-value store (Redis or
 * in-process) and builds the identity services on top: API keys, the administrator key, the
 * challenge, rate limits, quotas, usage and audits.
 */
import { join } from 'node:path';
import { openDatabase, type Database } from '@tts/common/data';
import { ApiKeyRepository, AuditRepository, FACADE_MIGRATIONS, SecretRepository, StudioRepository, UsageRepository } from '../data/index.js';
import { StudioAccounts } from '../studio/accounts.js';
import { PasswordHasher } from '../studio/passwords.js';
import { PwnedPasswords } from '../studio/pwned-passwords.js';
import { openKv, type Kv } from '@tts/common/kv';
import type { Logger } from '@tts/common';
import type { FacadeConfig } from '../config.js';
import {
  AdminKeyVerifier,
  ApiKeyService,
  AuditService,
  Authenticator,
  ChallengeService,
  loadAdminKey,
  loadChallengeSecret,
  QuotaService,
  RateLimitService,
  TierTable,
  UsageRecorder,
  UsageService,
} from './index.js';

/** The identity services of one facade. */
export interface AccessServices {
  readonly database: Database;
  readonly kv: Kv;
  readonly apiKeys: ApiKeyService;
  /** The API key tiers with their configured rates and concurrency caps (TTS_TIER_RATE_PER_MINUTE, TTS_TIER_CONCURRENCY, TTS_TIER_SESSIONS). */
  readonly tiers: TierTable;
  readonly admin: AdminKeyVerifier;
  readonly authenticator: Authenticator;
  readonly challenge: ChallengeService;
  readonly rateLimits: RateLimitService;
  readonly quotas: QuotaService;
  readonly usage: UsageService;
  readonly audits: AuditService;
  /** Studio accounts and sessions (read from the database on every request: no cache). */
  readonly studio: StudioAccounts;
  readonly studioRepo: StudioRepository;
  /** Closes storage connections. */
  close(): Promise<void>;
}

/**
 * Opens storage (applying the facade's migrations) and builds the services. A generated admin key
 * is printed once, outside the logs. `shared`: a database opened by the caller (one embedded
 * database for the facade and the scheduler in one process) used instead of opening one; the
 * caller closes it.
 */
export async function openAccessServices(config: FacadeConfig, logger: Logger, shared?: Database): Promise<AccessServices> {
  const embedded = config.databaseUrl === undefined;
  const database =
    shared ??
    (await openDatabase({
      ...(config.databaseUrl ? { url: config.databaseUrl } : {}),
      ...(embedded && !config.ephemeral ? { dataDir: config.dataDir } : {}),
      schema: config.dbSchema,
      migrations: FACADE_MIGRATIONS,
    }));
  // A database the caller opened (shared with the scheduler): the facade's tables are still its own to create.
  if (shared) await shared.migrate(FACADE_MIGRATIONS);
  const closeDatabase = async (): Promise<void> => {
    if (!shared) await database.close();
  };
  let kv: Kv;
  try {
    kv = await openKv({ ...(config.redisUrl ? { url: config.redisUrl } : {}), prefix: config.kvPrefix, logger });
  } catch (err) {
    await closeDatabase();
    throw err;
  }
  const apiKeyRepo = new ApiKeyRepository(database);
  const usageRepo = new UsageRepository(database);
  const studioRepo = new StudioRepository(database);
  // Embedded, this facade is the only writer of the identity tables, so its caches can live longer.
  const identityCacheMs = config.identityCacheMs ?? (embedded ? 60_000 : 2000);
  const tiers = new TierTable(config.tierRates, config.tierConcurrency, config.tierSessions);
  const apiKeys = new ApiKeyService({ repository: apiKeyRepo, cacheTtlMs: identityCacheMs, tiers });
  const challenge = new ChallengeService({
    secret: await loadChallengeSecret({ envValue: config.challengeSecret, secrets: new SecretRepository(database) }),
    kv,
    difficultyBits: config.challengeDifficulty,
  });
  const admin = await loadAdminKey({ envValue: config.adminKey, dataDir: embedded && !config.ephemeral ? config.dataDir : undefined });
  if (admin.printOnce) {
    // Deliberately not through the logger: log lines are kept and streamed; the key must not be.
    process.stdout.write(`\nAdministrator key (shown once; stored in ${admin.path ?? join(config.dataDir, 'admin-key')}): ${admin.key}\n\n`);
  }
  logger.info('identity ready', { database: database.kind, kv: kv.backend.kind, admin_key: admin.source, auth_mode: config.authMode });
  // Usage and consent records are written behind the response, in batches; quota figures are
  // cached per key and kept current with this replica's requests (identity/quotas.ts).
  const breached = config.pwnedPasswordsUrl === undefined ? undefined : new PwnedPasswords({ baseUrl: config.pwnedPasswordsUrl, timeoutMs: config.pwnedPasswordsTimeoutMs, logger });
  const studio = new StudioAccounts({ repo: studioRepo, kv, hasher: new PasswordHasher(), breached, logger });
  await studio.backfillUsernameSkeletons();
  const recorder = new UsageRecorder(usageRepo, logger, { flushMs: config.meteringFlushMs });
  const quotas = new QuotaService({ usage: usageRepo, pending: recorder, cacheTtlMs: identityCacheMs });
  return {
    database,
    kv,
    apiKeys,
    tiers,
    admin: new AdminKeyVerifier(admin.key),
    authenticator: new Authenticator({ mode: config.authMode, apiKeys, challenge }),
    challenge,
    rateLimits: new RateLimitService(kv.rateLimiter),
    quotas,
    usage: new UsageService({ usage: usageRepo, apiKeys: apiKeyRepo, quotas, recorder, tiers }),
    audits: new AuditService(new AuditRepository(database), logger, { flushMs: config.meteringFlushMs, denialWindowMs: config.auditDenialWindowMs }),
    studio,
    studioRepo,
    async close() {
      await kv.close();
      await closeDatabase();
    },
  };
}
