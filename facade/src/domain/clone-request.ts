/**
 * Clone requests of POST /api/tts: whether a body asks to clone, its reference clip (uploaded with
 * the request, or stored by the calling key), the consent rule, and the report headers.
 */
import { readFile } from 'node:fs/promises';
import type { Response } from 'express';
import { TtsError } from '@tts/common';
import type { CloneReport, CloneSpec } from '@tts/proto/synthesis';
import type { Caller } from '../middleware/access.js';
import type { UploadedFile } from '../middleware/uploads.js';
import type { Schema } from '../handler-context.js';
import { ownerKeyIdOf } from './owner.js';
import type { ReferenceService } from './references.js';
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

/** Where the reference of a clone request comes from, or undefined when it does not clone. */
export function cloneSourceOf(body: Schema<'TtsRequest'>, upload: UploadedFile | undefined): { upload?: UploadedFile; referenceId?: string } | undefined {
  const mode = body.mode ?? 'auto';
  const given = upload !== undefined || body.reference_id !== undefined;
  if (mode === 'preset' || (mode === 'auto' && !given)) return undefined;
  if (!given) throw new TtsError('VALIDATION_FAILED', 'mode clone needs a reference: reference_id, or ref_audio in a multipart form.', { loc: ['body', 'reference_id'] });
  return { ...(upload ? { upload } : {}), ...(body.reference_id ? { referenceId: body.reference_id } : {}) };
}

/** Consent is required to clone. */
export function requireConsent(consentConfirmed: boolean | null): void {
  if (consentConfirmed !== true) throw new TtsError('CONSENT_REQUIRED', undefined, { loc: ['body', 'consent_confirmed'] });
}

/** The CloneSpec sent to the node. */
export async function cloneSpecOf(source: { upload?: UploadedFile; referenceId?: string }, caller: Caller, references: ReferenceService): Promise<CloneSpec> {
  if (source.upload) {
    if (source.upload.sizeBytes === 0) throw new TtsError('UPLOAD_EMPTY', undefined, { loc: ['body', 'ref_audio'] });
    return { referenceAudio: await readFile(source.upload.path), referenceFilename: source.upload.filename, referenceId: '' };
  }
  const stored = await references.audio(ownerKeyIdOf(caller), source.referenceId!);
  return { referenceAudio: stored.audio, referenceFilename: stored.record.filename, referenceId: stored.record.referenceId };
}

/** The X-Clone-* headers of an answer. */
export function setCloneHeaders(res: Response, report: CloneReport): void {
  res.setHeader('X-Clone-Voice', report.voice);
  res.setHeader('X-Clone-Similarity-Before', report.similarityBefore.toFixed(4));
  res.setHeader('X-Clone-Similarity-After', report.similarityAfter.toFixed(4));
  res.setHeader('X-Clone-Pitch-Semitones', report.pitchSemitones.toFixed(2));
  res.setHeader('X-Clone-Speed', report.speed.toFixed(3));
  res.setHeader('X-Clone-Adapted', String(report.adapted));
}
