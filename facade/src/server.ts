/**
 * Starts and stops the REST/OpenAI facade.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { configureGrpcTls, createLogger, ensurePrivateDir, type Logger, setLogLevel } from '@tts/common';
import type { Database } from '@tts/common/data';
import { createApp } from './app.js';
import { routeUpgrades } from './realtime/upgrade.js';
import { capConnectionsPerAddress } from './middleware/connection-cap.js';
import { checkFacadeConfig, loadFacadeConfig, type FacadeConfig } from './config.js';
import { openAccessServices } from './identity/access-services.js';
import { ClusterView } from './cluster/cluster.js';
import { JobTokens } from './jobs/job-tokens.js';
import { JobsGateway } from './jobs/jobs-gateway.js';
import { Metering } from './speech/metering.js';
import { ProvenanceMarks } from './compliance/provenance.js';
import { JobUsage } from './jobs/job-usage.js';
import { LexiconCache } from './speech/lexicon-cache.js';
import { ComplianceRepository, JobUsageRepository, LexiconRepository, ReferenceRepository, SecretRepository, SloRepository } from './data/index.js';
import { AbuseReports } from './compliance/abuse-reports.js';
import { HubTokenService, loadHubTokenCipher } from './operations/hub-token.js';
import { AnalysisGateway } from './references/audio-analysis.js';
import { ReferenceService } from './references/references.js';
import { Lexicons } from './speech/lexicons.js';
import { Speech } from './speech/speak.js';
import { loadOpenApiDocument } from './operations/openapi-document.js';
import { Readiness } from './cluster/readiness.js';
import { SynthesisGateway } from './speech/synthesis.js';
import type { FacadeDeps } from './handler-context.js';
import { CleanupService } from './operations/cleanup.js';
import { LogStreamHub } from './operations/log-stream.js';
import { StreamSlots } from './operations/stream-slots.js';
import { SessionLimits } from './realtime/session-limits.js';
import { NodeRouter } from './cluster/node-router.js';
import { SloService } from './operations/slo/service.js';
import { observeWriteBehind } from '@tts/common/telemetry';
import { StudioPresets } from './studio/presets.js';
import { SlipOkVerifier } from './studio/slip-verifier.js';
import { VipService } from './studio/vip.js';

/** Options of start(): any config field overrides the environment's. */
export interface FacadeStartOptions extends Partial<FacadeConfig> {
  readonly logger?: Logger;
  /**
   * Database to use instead of opening one from the configuration (the launcher's control process:
   * one embedded database for the facade and the scheduler). The caller closes it after stop().
   */
  readonly database?: Database;
}

/** A running facade. */
export interface RunningFacade {
  readonly port: number;
  /** Base URL, e.g. http://127.0.0.1:8080 */
  readonly url: string;
  readonly deps: FacadeDeps;
  /** Stops accepting connections and waits for in-flight requests (up to graceMs). */
  stop(graceMs?: number): Promise<void>;
}

/** How often Node checks the headers and request time-outs of open connections, ms. */
const CONNECTION_CHECK_INTERVAL_MS = 1000;

/**
 * The HTTP server of `app` under the slow-client limits: headers within TTS_HTTP_HEADERS_TIMEOUT_MS,
 * the whole request (never the answer: Node's request time-out ends when the request has been
 * received) within TTS_HTTP_REQUEST_TIMEOUT_MS, checked every second rather than Node's 30 s, idle
 * keep-alive connections closed after TTS_HTTP_KEEP_ALIVE_TIMEOUT_MS, and the cap on connections
 * per peer address (middleware/connection-cap.ts). The minimum body rate is the body readers'
 * (middleware/bodies.ts).
 */
function createHttpServer(app: ReturnType<typeof createApp>, config: FacadeConfig, logger: Logger): Server {
  const server = createServer(
    {
      headersTimeout: config.httpHeadersTimeoutMs,
      requestTimeout: config.httpRequestTimeoutMs,
      keepAliveTimeout: config.httpKeepAliveTimeoutMs,
      connectionsCheckingInterval: CONNECTION_CHECK_INTERVAL_MS,
    },
    app,
  );
  let lastWarning = 0;
  capConnectionsPerAddress(server, {
    max: config.maxConnectionsPerAddress,
    exempt: config.connectionCapExempt,
    trustedProxies: config.trustedProxies,
    onRefused: (address, open) => {
      // One line a minute at most: a flood of refusals must not become a flood of log lines.
      if (Date.now() - lastWarning < 60_000) return;
      lastWarning = Date.now();
      logger.warn('connection refused: too many open connections from one address', { address, open, max: config.maxConnectionsPerAddress });
    },
  });
  // WebSocket operations (the streaming sessions) go through the same app: realtime/upgrade.ts.
  routeUpgrades(server, app, { maxMessageBytes: config.wsMaxMessageBytes });
  return server;
}

/** Builds the facade and listens. */
export async function start(options: FacadeStartOptions = {}): Promise<RunningFacade> {
  const overrides = Object.fromEntries(Object.entries(options).filter(([k, v]) => v !== undefined && k !== 'logger' && k !== 'database'));
  const config: FacadeConfig = checkFacadeConfig({ ...loadFacadeConfig(), ...overrides });
  setLogLevel(config.logLevel);
  const logger = options.logger ?? createLogger('facade');
  // Uploads are written there: private (0700), never a folder another user made.
  ensurePrivateDir(config.uploadTmpDir);
  // Before the first gRPC server or client: every hop then uses the same TLS material (or none).
  await configureGrpcTls(config.grpcTls, (message) => logger.warn(message));
  // One background ListNodes feeds both the routing of requests and the cluster view.
  const router = new NodeRouter({ schedulerAddress: config.schedulerAddress, internalToken: config.internalToken, policy: config.routing, refreshMs: config.routingRefreshMs, logger });
  const cluster = new ClusterView(router, undefined, logger);
  const access = await openAccessServices(config, logger, options.database);
  const analysis = new AnalysisGateway({ router, timeoutMs: config.analysisTimeoutMs });
  const compliance = new ComplianceRepository(access.database);
  const referenceRepo = new ReferenceRepository(access.database);
  const slipVerifier = config.slipProviderUrl === undefined
    ? undefined
    : new SlipOkVerifier({ baseUrl: config.slipProviderUrl, apiKey: config.slipProviderKey ?? '', branchId: config.slipProviderBranch ?? '', timeoutMs: config.slipProviderTimeoutMs });
  const provenance = await ProvenanceMarks.open(config.provenanceSecret, new SecretRepository(access.database));
  const jobs = new JobsGateway(config.schedulerAddress, provenance, config.internalToken);
  const gateway = new SynthesisGateway({ router, timeoutMs: config.requestTimeoutMs, retries: config.synthRetries, admissionShare: config.admission ? config.admissionBudgetShare : undefined, marks: provenance });
  const metering = new Metering(access, provenance);
  // Settled at least once a second: each sweep asks the scheduler about every pending job.
  const jobUsage = new JobUsage(new JobUsageRepository(access.database), jobs, logger, Math.max(config.meteringFlushMs, 1000));
  const presets = new StudioPresets(access.studioRepo, cluster, async (owner, id) => (await referenceRepo.get(owner, id)) !== undefined);
  const references = new ReferenceService(referenceRepo, analysis, { retentionHours: config.referenceRetentionHours, maxStoredSec: config.referenceMaxStoredSec });
  const lexicons = new Lexicons(new LexiconRepository(access.database), access.studioRepo, new LexiconCache(access.kv, { logger }));
  const deps: FacadeDeps = {
    config,
    provenance,
    cluster,
    readiness: new Readiness(cluster, config.defaultVoice),
    openapi: loadOpenApiDocument(),
    access,
    metering,
    jobs,
    jobUsage,
    jobTokens: await JobTokens.open(new SecretRepository(access.database), config.jobTokenTtlSec),
    logger,
    slo: new SloService({ database: access.database, objectives: config.sloObjectives, logger }),
    cleanup: new CleanupService(
      { dataDir: config.dataDir, artifactRetentionHours: config.artifactRetentionHours, sloRetentionDays: config.sloRetentionDays, referenceRetentionHours: config.referenceRetentionHours, intervalMinutes: config.cleanupIntervalMinutes },
      new SloRepository(access.database),
      referenceRepo,
      logger,
      access.studioRepo,
    ),
    logStreams: new LogStreamHub(),
    streamSlots: new StreamSlots(config.maxStreamsPerCredential),
    sessionLimits: new SessionLimits({ tiers: access.tiers, inactivityTimeoutSec: config.sessionInactivityTimeoutSec }),
    analysis,
    abuseReports: new AbuseReports(compliance, analysis, access.database),
    compliance,
    hubToken: new HubTokenService(
      access.database,
      await loadHubTokenCipher({ envValue: config.hubTokenKey, dataDir: config.databaseUrl === undefined && !config.ephemeral ? config.dataDir : undefined, ephemeral: config.databaseUrl === undefined && config.ephemeral }, logger),
      config.hubUrl,
    ),
    studio: {
      presets,
      vip: new VipService(access.studioRepo, slipVerifier, logger),
    },
    references,
    lexicons,
    speech: new Speech({ presets, lexicons, cluster, references, metering, gateway, jobs, jobUsage, defaultVoice: config.defaultVoice }),
  };
  let server: Server;
  try {
    server = createHttpServer(createApp(deps), config, logger);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (err) {
    router.close();
    await access.close();
    throw err;
  }
  deps.cleanup.start();
  deps.jobUsage.start();
  router.warm();
  const stopBacklogGauges = observeWriteBehind(() => [
    { records: 'usage_events', ...deps.access.usage.backlog() },
    { records: 'consent_audit', ...deps.access.audits.consentBacklog() },
    { records: 'slo_requests', ...deps.slo.backlog() },
  ]);
  const port = (server.address() as AddressInfo).port;
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  logger.info('facade listening', { url: `http://${host}:${port}`, scheduler: config.schedulerAddress, routing: config.routing });
  let stopping: Promise<void> | undefined;
  return {
    port,
    url: `http://${host}:${port}`,
    deps,
    stop(graceMs = 10_000) {
      stopping ??= new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          server.closeAllConnections();
          resolve();
        }, graceMs);
        timer.unref();
        server.close(() => {
          clearTimeout(timer);
          resolve();
        });
        server.closeIdleConnections();
        // Log streams never end by themselves: end them so the server can close.
        deps.logStreams.closeAll();
      }).then(async () => {
        router.close();
        stopBacklogGauges();
        await deps.metering.drain();
        await deps.jobUsage.stop();
        await deps.cleanup.stop();
        await deps.slo.drain();
        await access.close();
      });
      return stopping;
    },
  };
}
