/**
 * Clone requests of POST /api/tts, POST /api/jobs/tts and POST /api/web/jobs/tts: whether a body
 * asks to clone, its reference clip (uploaded with the request, or stored by the calling key or
 * studio user), the consent rule, and the report headers.
 */
import { readFile } from 'node:fs/promises';
import { TtsError } from '@tts/common';
import type { CloneSpec } from '@tts/proto/synthesis';
import type { Caller } from '../middleware/access.js';
import type { UploadedFile } from '../middleware/uploads.js';
import type { Schema } from '../handler-context.js';
import { requireCloning } from '../cluster/analysis-features.js';
import type { ClusterView } from '../cluster/cluster.js';
import { ownerKeyIdOf } from '../identity/owner.js';
import type { ReferenceService } from '../references/references.js';
import { formBoolean } from './speech-request.js';

/** The JSON body, with a multipart form turned into the same shape (form values are text). */
export function ttsBodyOf(body: Schema<'TtsRequest'> | Schema<'TtsCloneForm'>): Schema<'TtsRequest'> {
  if (typeof body.consent_confirmed !== 'string') return body as Schema<'TtsRequest'>;
  const form = body as Schema<'TtsCloneForm'>;
  return {
    text: form.text,
    ...(form.mode ? { mode: form.mode } : {}),
    ...(form.format ? { format: form.format } : {}),
    ...(form.reference_id ? { reference_id: form.reference_id } : {}),
    ...(formBoolean(form.consent_confirmed) !== undefined ? { consent_confirmed: formBoolean(form.consent_confirmed) } : {}),
  };
}

/** The fields of a body (TtsRequest, or the web job form) that ask for a clone. */
export interface CloneFields {
  readonly mode?: string | undefined;
  readonly reference_id?: string | undefined;
}

/** Where the reference of a clone request comes from, or undefined when it does not clone. */
export function cloneSourceOf(body: CloneFields, upload: UploadedFile | undefined): { upload?: UploadedFile; referenceId?: string } | undefined {
  const mode = body.mode ?? 'auto';
  const given = upload !== undefined || (body.reference_id !== undefined && body.reference_id !== '');
  if (mode === 'preset' || (mode === 'auto' && !given)) return undefined;
  if (!given) throw new TtsError('VALIDATION_FAILED', 'mode clone needs a reference: reference_id, or ref_audio in a multipart form.', { loc: ['body', 'reference_id'] });
  return { ...(upload ? { upload } : {}), ...(body.reference_id ? { referenceId: body.reference_id } : {}) };
}

/**
 * Where the reference of a web job form comes from (a stored clip only), or undefined when it does
 * not clone. Only an API key or a studio user owns clips: for a caller with the browser check
 * alone, any reference is REFERENCE_NOT_FOUND (404), as another owner's clip is.
 */
export function webCloneSourceOf(form: CloneFields, caller: Caller): { referenceId?: string } | undefined {
  const source = cloneSourceOf(form, undefined);
  if (source && caller.method !== 'api_key' && caller.method !== 'studio') {
    throw new TtsError('REFERENCE_NOT_FOUND', 'Only an API key or a studio user owns reference clips; the browser check alone cannot clone. Sign in to the studio or use an API key.', { loc: ['body', 'reference_id'] });
  }
  return source;
}

/** Consent is required to clone. */
export function requireConsent(consentConfirmed: boolean | null): void {
  if (consentConfirmed !== true) throw new TtsError('CONSENT_REQUIRED', undefined, { loc: ['body', 'consent_confirmed'] });
}

/**
 * The CloneSpec sent to the node. Refused before any work when no ready node can clone
 * (503 ANALYSIS_UNAVAILABLE naming the missing models), and for a stored clip that failed the
 * reference check (422 REFERENCE_CHECK_FAILED naming the failed checks).
 */
export async function cloneSpecOf(source: { upload?: UploadedFile; referenceId?: string }, caller: Caller, services: { references: ReferenceService; cluster: ClusterView }): Promise<CloneSpec> {
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
