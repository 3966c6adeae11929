/**
 * VIP membership: plans, payment by slip, manual requests, and administrators' decisions.
 *
 * A slip (`POST /api/studio/vip/slip`) follows the interface's state table exactly:
 *
 * | provider outcome                                   | request status   | VIP            |
 * |----------------------------------------------------|------------------|----------------|
 * | genuine, amount equals the plan price              | approved         | granted at once |
 * | fraud (not a payment slip, no such transfer)       | rejected         | none           |
 * | anything else: amount mismatch, wrong receiver,    | pending_review   | an administrator approves or rejects |
 * | unreadable, bank unavailable, provider error,      |                  |                |
 * | timeout, no provider configured                    |                  |                |
 *
 * The same slip is never accepted twice: its SHA-256 and the provider's transaction reference are
 * each unique over all requests (a second submission answers 409 STUDIO_SLIP_DUPLICATE and stores
 * nothing). Approval extends VIP by the plan's days from the later of now and the current end. VIP
 * ends by itself at `vip_until`; the cleanup records each end in the audit. Every state change
 * (request created, approved, rejected; VIP granted, changed, ended) is written to the append-only
 * `studio_audit` in the same transaction as the change.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { TtsError, type Logger } from '@tts/common';
import { DatabaseError } from '@tts/common/data';
import { writeStudioAudit, type NewAuditEntry, type StudioRepository, type StudioUser, type VipRequest, type VipStatus } from '../data/index.js';
import { isVip, type StudioPrincipal } from './accounts.js';
import { STUDIO_LIMITS } from './presets.js';
import { checkSlipImage } from './slip-image.js';
import type { SlipFacts, SlipVerdict, SlipVerifier } from './slip-verifier.js';
import { STUDIO_TIERS, studioTierJson } from './tiers.js';

/** A VIP plan. */
export interface VipPlan {
  readonly planId: string;
  readonly name: string;
  readonly price: number;
  readonly currency: string;
  readonly days: number;
}

/** The plans on sale (prices in Thai baht: slips are Thai bank-transfer slips). */
export const VIP_PLANS: readonly VipPlan[] = [
  { planId: 'vip_month', name: 'VIP, 30 days', price: 99, currency: 'THB', days: 30 },
  { planId: 'vip_year', name: 'VIP, 365 days', price: 990, currency: 'THB', days: 365 },
];

/** Largest slip image, bytes (the providers' own limit is 4 MB). */
export const MAX_SLIP_BYTES = 4 * 1024 * 1024;

/** The slip as uploaded. */
export interface SlipUpload {
  readonly path: string;
  readonly filename: string;
  readonly contentType: string;
}

/** How a verdict maps to a request: status and reason. */
function decisionOf(verdict: SlipVerdict | undefined): { status: VipStatus; reason: string } {
  if (verdict === undefined) return { status: 'pending_review', reason: 'provider_not_configured' };
  switch (verdict.kind) {
    case 'genuine':
      return { status: 'approved', reason: 'slip_verified' };
    case 'fraud':
      return { status: 'rejected', reason: 'slip_fraud' };
    case 'amount_mismatch':
      return { status: 'pending_review', reason: 'amount_mismatch' };
    case 'wrong_receiver':
      return { status: 'pending_review', reason: 'wrong_receiver' };
    case 'duplicate':
      return { status: 'pending_review', reason: 'provider_reports_repeat' };
    case 'unreadable':
      return { status: 'pending_review', reason: 'slip_unreadable' };
    case 'pending':
      return { status: 'pending_review', reason: 'bank_unavailable' };
    case 'error':
      return { status: 'pending_review', reason: 'provider_error' };
    case 'timeout':
      return { status: 'pending_review', reason: 'provider_timeout' };
  }
}

function factsOf(verdict: SlipVerdict | undefined): SlipFacts | null {
  if (verdict === undefined) return null;
  return 'facts' in verdict ? verdict.facts : null;
}

/** VIP plans, slips, requests and decisions. */
export class VipService {
  constructor(
    private readonly repo: StudioRepository,
    private readonly verifier: SlipVerifier | undefined,
    private readonly logger: Logger,
    readonly plans: readonly VipPlan[] = VIP_PLANS,
    private readonly now: () => Date = () => new Date(),
  ) {}

  plan(planId: string, loc: string[]): VipPlan {
    const plan = this.plans.find((p) => p.planId === planId);
    if (!plan) throw new TtsError('STUDIO_VIP_PLAN_UNKNOWN', `Plan "${planId}" does not exist; plans: ${this.plans.map((p) => p.planId).join(', ')}.`, { loc });
    return plan;
  }

  /** Plans, benefits, and the caller's status with its recent requests. */
  async info(p: StudioPrincipal): Promise<{ plans: readonly VipPlan[]; provider: string | null; user: StudioUser; vip: boolean; requests: VipRequest[] }> {
    const requests = await this.repo.listVipRequests({ userId: p.user.userId }, 20);
    return { plans: this.plans, provider: this.verifier?.provider ?? null, user: p.user, vip: isVip(p.user, this.now()), requests };
  }

  private requireRegistered(p: StudioPrincipal): void {
    if (p.user.kind !== 'registered') throw new TtsError('STUDIO_REGISTRATION_REQUIRED', 'VIP belongs to a registered account; register first (a guest keeps its presets).');
  }

  private async hasPending(userId: string): Promise<boolean> {
    return (await this.repo.listVipRequests({ userId, status: 'pending_review' }, 1)).length > 0;
  }

  /**
   * Verifies a slip and records the request following the state table. Refused before the provider
   * sees it: a user with a request waiting (409 STUDIO_VIP_REQUEST_PENDING), a file that is not one
   * whole image of at most 4096 x 4096 pixels (slip-image.ts).
   */
  async submitSlip(p: StudioPrincipal, planId: string, slip: SlipUpload, requestRef: string, signal: AbortSignal): Promise<VipRequest> {
    this.requireRegistered(p);
    const plan = this.plan(planId, ['body', 'plan_id']);
    // One request waits at a time (checked again atomically when it is recorded).
    if (await this.hasPending(p.user.userId)) throw new TtsError('STUDIO_VIP_REQUEST_PENDING');
    // The upload is capped at 4 MiB while it streams in (x-max-upload-bytes), so reading it whole is bounded.
    const bytes = await readFile(slip.path);
    checkSlipImage(bytes);
    const slipSha256 = createHash('sha256').update(bytes).digest('hex');
    if (await this.repo.vipBySlip(slipSha256)) throw new TtsError('STUDIO_SLIP_DUPLICATE', undefined, { loc: ['body', 'slip'] });
    const verdict = this.verifier ? await this.verifier.verify(slip, plan.price, signal) : undefined;
    const facts = factsOf(verdict);
    if (facts?.transRef && (await this.repo.vipByTransRef(facts.transRef))) throw new TtsError('STUDIO_SLIP_DUPLICATE', 'This transfer was already submitted with another image of its slip.', { loc: ['body', 'slip'] });
    const { status, reason } = decisionOf(verdict);
    const requestId = `vip_${randomBytes(12).toString('base64url')}`;
    const actor = status === 'pending_review' ? `studio:${p.user.userId}` : `provider:${this.verifier?.provider ?? 'none'}`;
    const audits: NewAuditEntry[] = [
      { actor: `studio:${p.user.userId}`, userId: p.user.userId, action: 'vip_request.submitted', vipRequestId: requestId, fromState: null, toState: 'pending_review', detail: { source: 'slip', plan_id: plan.planId }, requestRef },
    ];
    if (status !== 'pending_review') audits.push({ actor, userId: p.user.userId, action: `vip_request.${status}`, vipRequestId: requestId, fromState: 'pending_review', toState: status, detail: { reason }, requestRef });
    try {
      const request = await this.repo.createVipRequest({
        requestId,
        userId: p.user.userId,
        source: 'slip',
        planId: plan.planId,
        status,
        reason,
        message: null,
        expectedAmount: plan.price,
        slipSha256,
        provider: this.verifier?.provider ?? null,
        providerVerdict: verdict?.kind ?? null,
        providerCode: verdict !== undefined && 'providerCode' in verdict ? verdict.providerCode : null,
        providerMessage: verdict !== undefined && 'message' in verdict ? verdict.message.slice(0, 500) : null,
        transRef: facts?.transRef ?? null,
        slipAmount: facts?.amount ?? null,
        decidedBy: status === 'pending_review' ? null : actor,
        vipDays: status === 'approved' ? plan.days : null,
      }, audits, requestRef);
      this.logger.info('vip slip', { user_id: p.user.userId, vip_request_id: requestId, status, reason, request_id: requestRef });
      return request;
    } catch (err) {
      if (err instanceof DatabaseError && err.sqlState === '23505') throw new TtsError('STUDIO_SLIP_DUPLICATE', undefined, { loc: ['body', 'slip'] });
      throw err;
    }
  }

  /** A request for VIP with a message, for an administrator to decide. */
  async request(p: StudioPrincipal, planId: string, message: string, requestRef: string): Promise<VipRequest> {
    this.requireRegistered(p);
    const plan = this.plan(planId, ['body', 'plan_id']);
    if (await this.hasPending(p.user.userId)) throw new TtsError('STUDIO_VIP_REQUEST_PENDING');
    const requestId = `vip_${randomBytes(12).toString('base64url')}`;
    return this.repo.createVipRequest({
      requestId, userId: p.user.userId, source: 'manual', planId: plan.planId, status: 'pending_review', reason: 'manual_request', message,
      expectedAmount: null, slipSha256: null, provider: null, providerVerdict: null, providerCode: null, providerMessage: null, transRef: null, slipAmount: null, decidedBy: null, vipDays: null,
    }, [{ actor: `studio:${p.user.userId}`, userId: p.user.userId, action: 'vip_request.submitted', vipRequestId: requestId, fromState: null, toState: 'pending_review', detail: { source: 'manual', plan_id: plan.planId }, requestRef }], requestRef);
  }

  list(status: VipStatus | undefined, limit: number): Promise<VipRequest[]> {
    return this.repo.listVipRequests({ status }, limit);
  }

  /**
   * An administrator's decision: only from pending_review (else 409 STUDIO_VIP_REQUEST_DECIDED).
   * `actingUserId` is the deciding studio administrator (null for the administrator key): nobody
   * approves their own request (403 STUDIO_VIP_SELF_APPROVAL, the attempt audited).
   */
  async decide(requestId: string, to: 'approved' | 'rejected', actor: string, actingUserId: string | null, requestRef: string): Promise<VipRequest> {
    const current = await this.repo.vipRequest(requestId);
    if (!current) throw new TtsError('STUDIO_VIP_REQUEST_NOT_FOUND', undefined, { loc: ['path', 'request_id'] });
    if (to === 'approved' && actingUserId !== null && actingUserId === current.userId) {
      await writeStudioAudit(this.repo.db, { actor, userId: current.userId, action: 'vip_request.self_approval_refused', vipRequestId: requestId, fromState: current.status, toState: current.status, detail: null, requestRef });
      this.logger.warn('vip self-approval refused', { user_id: current.userId, vip_request_id: requestId, request_id: requestRef });
      throw new TtsError('STUDIO_VIP_SELF_APPROVAL', undefined, { loc: ['path', 'request_id'] });
    }
    if (current.status !== 'pending_review') throw new TtsError('STUDIO_VIP_REQUEST_DECIDED', `The request is ${current.status}; only a request in pending_review can be ${to}.`, { loc: ['path', 'request_id'] });
    const days = this.plans.find((p) => p.planId === current.planId)?.days ?? 30;
    const decided = await this.repo.decideVipRequest(requestId, to, actor, to === 'approved' ? days : null, requestRef);
    if (!decided) throw new TtsError('STUDIO_VIP_REQUEST_DECIDED', 'The request was decided meanwhile; read it again.', { loc: ['path', 'request_id'] });
    return decided;
  }
}

/** The JSON of a VIP request; `admin` adds the provider's details. */
export function vipRequestJson(r: VipRequest, admin: boolean): Record<string, unknown> {
  const base: Record<string, unknown> = {
    request_id: r.requestId,
    source: r.source,
    plan_id: r.planId,
    status: r.status,
    reason: r.reason,
    created_at: r.createdAt.toISOString(),
    decided_at: r.decidedAt?.toISOString() ?? null,
    vip_until: r.vipUntil?.toISOString() ?? null,
  };
  if (!admin) return base;
  return {
    ...base,
    user_id: r.userId,
    message: r.message,
    expected_amount: r.expectedAmount,
    slip: r.source === 'slip' ? { sha256: r.slipSha256, provider: r.provider, verdict: r.providerVerdict, provider_code: r.providerCode, provider_message: r.providerMessage, trans_ref: r.transRef, amount: r.slipAmount } : null,
    decided_by: r.decidedBy,
  };
}

/** The JSON of a plan. */
export function planJson(p: VipPlan): Record<string, unknown> {
  return { plan_id: p.planId, name: p.name, price: p.price, currency: p.currency, days: p.days };
}

/** What VIP changes, as the info page shows it. */
export function benefitsJson(): Record<string, unknown> {
  return {
    standard: { presets: STUDIO_LIMITS.registered.presets, active_shares: STUDIO_LIMITS.registered.shares, synthesis: studioTierJson(STUDIO_TIERS.registered) },
    guest: { presets: STUDIO_LIMITS.guest.presets, active_shares: STUDIO_LIMITS.guest.shares, synthesis: studioTierJson(STUDIO_TIERS.guest) },
    vip: { presets: STUDIO_LIMITS.vip.presets, active_shares: STUDIO_LIMITS.vip.shares, synthesis: studioTierJson(STUDIO_TIERS.vip) },
  };
}
