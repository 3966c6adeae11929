/**
 * Metering of every request that reaches synthesis: before it, the caller's tier text length and
 * quota are checked (the stage goes back in X-Quota-Stage), and a synchronous synthesis takes one
 * of the caller's in-flight places (its tier's `concurrentRequests`; concurrency.ts); after it, whatever happened, a usage
 * event and a consent-audit record are recorded. Both are written behind the response, in batches
 * (identity/usage-recorder.ts, identity/audits.ts); `drain()` writes them (shutdown, tests). The
 * quota figures are cached per key and include this replica's records not yet written.
 */
import { performance } from 'node:perf_hooks';
import { ERROR_CATALOGUE, TtsError } from '@tts/common';
import { checkTextLength, type QuotaStatus, type QuotaSubject, type Tier } from '../identity/index.js';
import type { Caller } from '../middleware/access.js';
import type { StudioPrincipal } from '../studio/accounts.js';
import { studioTierOf, studioUsageSubject } from '../studio/tiers.js';
import type { AccessServices } from '../identity/access-services.js';
import { InFlightLimiter, type InFlightRelease } from './concurrency.js';
import type { ProvenanceMarks } from '../compliance/provenance.js';

/** What metering needs to know of a synthesis request. */
export interface MeteredRequest {
  /** Operation, e.g. "POST /api/tts". */
  readonly endpoint: string;
  readonly requestId: string;
  readonly characters: number;
  /** Body field holding the text, for errors. */
  readonly textField: string;
  readonly mode: string | null;
  readonly consentConfirmed: boolean | null;
  /** A synchronous synthesis (counted against the caller's tier's concurrentRequests); jobs are not. */
  readonly synchronous: boolean;
}

/** What a metered synthesis delivered. */
export interface Delivered {
  readonly audioSeconds: number;
  /**
   * Characters to count when they are known only afterwards (an interactive session: those spoken,
   * plus those in synthesis when a context was cancelled); absent: the request's.
   */
  readonly characters?: number;
}

/**
 * Who is metered for a request: an API key (its tier and overrides) or a studio user (the tier of
 * the account: guest, member or VIP), counted under their usage subject; undefined for callers
 * without quotas (anti-bot passes, the administrator).
 */
export function meteredSubjectOf(caller: Caller): { subject: QuotaSubject; tier: Tier } | undefined {
  if (caller.method === 'api_key') return { subject: caller.key.record, tier: caller.key.tier };
  if (caller.method === 'studio') return studioMeteredSubject(caller.principal);
  return undefined;
}

/** A studio user's usage subject and the tier of their account. */
export function studioMeteredSubject(p: StudioPrincipal): { subject: QuotaSubject; tier: Tier } {
  return { subject: { keyId: studioUsageSubject(p.user.userId), dailyCharQuota: null, monthlyCharQuota: null }, tier: studioTierOf(p) };
}

/**
 * The caller's weight in the nodes' fair sharing of an engine between tenants
 * (SynthesizeRequest.tenant_weight): its tier's concurrency cap; 1 for callers without a tier.
 */
export function tenantWeightOf(caller: Caller): number {
  return meteredSubjectOf(caller)?.tier.concurrentRequests ?? 1;
}

/** Meters synthesis requests. */
export class Metering {
  private readonly inFlight = new InFlightLimiter();

  constructor(
    private readonly access: AccessServices,
    /** Gives each request's consent record the payload its audio is marked with. */
    private readonly marks: ProvenanceMarks,
  ) {}

  /**
   * Runs `precheck`, checks the caller's limits, runs `synthesize` with the caller's quota status (API keys, studio users; it
   * returns what it delivered, and may `report` what it delivered so far, counted if it then fails), and records usage and
   * consent whatever the outcome. Errors are rethrown (QuotaExceededError carries the quota status).
   */
  async run(
    caller: Caller,
    req: MeteredRequest,
    synthesize: (quota: QuotaStatus | undefined, report: (sofar: Delivered) => void) => Promise<Delivered>,
    precheck?: () => void,
  ): Promise<void> {
    const started = performance.now();
    let quota: QuotaStatus | undefined;
    let release: InFlightRelease | undefined;
    const metered = meteredSubjectOf(caller);
    try {
      // A request refused before synthesis (e.g. a clone without consent) is audited as refused.
      precheck?.();
      if (metered) {
        checkTextLength(metered.tier, req.characters, ['body', req.textField]);
        quota = await this.access.quotas.check(metered.subject, metered.tier, req.characters);
        if (req.synchronous) release = this.inFlight.acquire(metered.subject.keyId, metered.tier.concurrentRequests);
      }
    } catch (err) {
      this.consent(caller, req, 'refused', err);
      throw err;
    }
    let delivered: Delivered = { audioSeconds: 0 };
    let failure: unknown;
    try {
      delivered = await synthesize(quota, (sofar) => (delivered = sofar));
    } catch (err) {
      failure = err;
      throw err;
    } finally {
      release?.();
      const code = failure === undefined ? null : failure instanceof TtsError ? failure.code : 'INTERNAL_ERROR';
      this.access.usage.record({
        requestId: req.requestId,
        keyId: metered?.subject.keyId ?? null,
        authMethod: caller.method,
        endpoint: req.endpoint,
        tier: metered?.tier.name ?? null,
        characters: delivered.characters ?? req.characters,
        audioSeconds: delivered.audioSeconds,
        status: failure === undefined ? 'ok' : 'error',
        httpStatus: code === null ? 200 : ERROR_CATALOGUE[code as keyof typeof ERROR_CATALOGUE]?.http ?? 500,
        errorCode: code,
        latencyMs: performance.now() - started,
        quotaStage: quota?.stage ?? null,
      });
      this.consent(caller, req, failure === undefined ? 'ok' : 'error', failure);
    }
  }

  private consent(caller: Caller, req: MeteredRequest, outcome: 'ok' | 'refused' | 'error', err: unknown): void {
    this.access.audits.recordConsent({
      requestId: req.requestId,
      endpoint: req.endpoint,
      mode: req.mode,
      authMethod: caller.method,
      keyId: meteredSubjectOf(caller)?.subject.keyId ?? null,
      consentConfirmed: req.consentConfirmed,
      outcome,
      errorCode: err === undefined ? null : err instanceof TtsError ? err.code : 'INTERNAL_ERROR',
      watermarkPayload: this.marks.payloadOf(req.requestId),
    });
  }

  /** Writes every buffered usage event and consent record and waits (shutdown, tests). */
  async drain(): Promise<void> {
    await Promise.all([this.access.usage.drain(), this.access.audits.drain()]);
  }
}
