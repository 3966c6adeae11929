/**
 * Clone requests (POST /api/tts, POST /api/jobs/tts and POST /api/web/jobs/tts; whether a request
 * clones is read with the speech request, `cloneSourceOf`): the consent rule, and the reference
 * clip sent to the node (uploaded with the request, or stored by the calling key or studio user).
 */
import { readFile } from 'node:fs/promises';
import { TtsError } from '@tts/common';
import type { CloneSpec } from '@tts/proto/synthesis';
import type { Caller } from '../middleware/access.js';
import { requireCloning } from '../cluster/analysis-features.js';
import type { ClusterView } from '../cluster/cluster.js';
import { ownerKeyIdOf } from '../identity/owner.js';
import type { ReferenceService } from '../references/references.js';
import type { CloneSource } from './speech-request.js';

/** Consent is required to clone. */
export function requireConsent(consentConfirmed: boolean | null): void {
  if (consentConfirmed !== true) throw new TtsError('CONSENT_REQUIRED', undefined, { loc: ['body', 'consent_confirmed'] });
}

/**
 * The CloneSpec sent to the node. Refused before any work when no ready node can clone
 * (503 ANALYSIS_UNAVAILABLE naming the missing models), and for a stored clip that failed the
 * reference check (422 REFERENCE_CHECK_FAILED naming the failed checks).
 */
export async function cloneSpecOf(source: CloneSource, caller: Caller, services: { references: Pick<ReferenceService, 'audio'>; cluster: Pick<ClusterView, 'snapshot'> }): Promise<CloneSpec> {
  requireCloning((await services.cluster.snapshot()).ready);
  const references = services.references;
  if (source.upload) {
    if (source.upload.sizeBytes === 0) throw new TtsError('UPLOAD_EMPTY', undefined, { loc: ['body', 'ref_audio'] });
    return { referenceAudio: await readFile(source.upload.path), referenceFilename: source.upload.filename, referenceId: '' };
  }
  const stored = await references.audio(ownerKeyIdOf(caller), source.referenceId!);
  if (!stored.record.passed) {
    const failed = failedChecksOf(stored.record.analysis);
    throw new TtsError('REFERENCE_CHECK_FAILED', `The clip ${stored.record.referenceId} did not pass the reference check${failed.length > 0 ? ` (${failed.join(', ')})` : ''}; record or upload a clip that passes it.`, { loc: ['body', 'reference_id'] });
  }
  return { referenceAudio: stored.audio, referenceFilename: stored.record.filename, referenceId: stored.record.referenceId };
}

/** The failed guideline checks kept with a stored clip's analysis. */
function failedChecksOf(analysis: unknown): string[] {
  const failed = (analysis as { failed_checks?: unknown } | null)?.failed_checks;
  return Array.isArray(failed) ? failed.filter((c): c is string => typeof c === 'string') : [];
}
