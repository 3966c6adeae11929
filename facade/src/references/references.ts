/**
 * Reference clips for voice cloning: validation (the node's analysis against the guideline,
 * 3-10 s, mono, >= 16 kHz), transcription, and the owner's stored clips (kept for reuse by
 * `reference_id` until they expire). Stored clips belong to the API key that uploaded them.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { REFERENCE_GUIDELINE, TtsError } from '@tts/common';
import type { ReferenceAnalysis, Transcription } from '@tts/proto/analysis';
import type { ReferenceRecord, ReferenceRepository } from '../data/index.js';
import type { AnalysisGateway } from './audio-analysis.js';
import { round } from '../presenters/round.js';

/** An uploaded file as the service needs it. */
export interface ReferenceUpload {
  readonly path: string;
  readonly filename: string;
  readonly mimeType: string;
  readonly sizeBytes: number;
}

/** Settings of the reference service. */
export interface ReferencePolicy {
  readonly retentionHours: number;
  /** Longer clips are validated but not stored. */
  readonly maxStoredSec: number;
}

/** The guideline every answer states. */
export const REFERENCE_GUIDELINE_JSON = Object.freeze({
  min_sec: REFERENCE_GUIDELINE.minSec,
  max_sec: REFERENCE_GUIDELINE.maxSec,
  channels: REFERENCE_GUIDELINE.channels,
  min_sample_rate: REFERENCE_GUIDELINE.minSampleRate,
});

/** A validation and, when stored, the clip's record. */
export interface ReferenceValidation {
  readonly analysis: ReferenceAnalysis;
  readonly stored: ReferenceRecord | null;
  /** Why the clip was not stored, when it was not. */
  readonly notStoredReason: string | null;
}

/** Validates, transcribes and keeps reference clips. */
export class ReferenceService {
  constructor(
    private readonly repo: ReferenceRepository,
    private readonly analysis: AnalysisGateway,
    private readonly policy: ReferencePolicy,
  ) {}

  /** Analyses the clip on a node and stores it for `ownerKeyId` (unless `store` is false or it is too long). */
  async validate(upload: ReferenceUpload, options: { ownerKeyId: string; store: boolean; transcribe: boolean; requestId: string; signal: AbortSignal }): Promise<ReferenceValidation> {
    const analysis = await this.analysis.analyzeReference({ path: upload.path }, { requestId: options.requestId, filename: upload.filename, contentType: upload.mimeType, sizeBytes: upload.sizeBytes, transcribe: options.transcribe }, options.signal);
    const duration = analysis.audio?.durationSec ?? 0;
    if (!options.store) return { analysis, stored: null, notStoredReason: 'store=false was sent.' };
    if (duration > this.policy.maxStoredSec) return { analysis, stored: null, notStoredReason: `Clips longer than ${this.policy.maxStoredSec} s are validated but not stored.` };
    const audio = await readFile(upload.path);
    const now = Date.now();
    const stored = await this.repo.insert({
      referenceId: `ref_${randomBytes(12).toString('base64url')}`,
      ownerKeyId: options.ownerKeyId,
      expiresAt: new Date(now + this.policy.retentionHours * 3_600_000),
      filename: upload.filename.slice(0, 255),
      suffix: analysis.audio?.suffix ?? '',
      contentType: upload.mimeType.slice(0, 255),
      sizeBytes: audio.length,
      sha256: createHash('sha256').update(audio).digest('hex'),
      durationSec: duration,
      sampleRate: analysis.audio?.sampleRate ?? 0,
      channels: analysis.audio?.channels ?? 0,
      passed: passed(analysis),
      analysis: storedAnalysis(analysis),
      audio,
    });
    return { analysis, stored, notStoredReason: null };
  }

  /** Transcribes the clip on a node. */
  transcribe(upload: ReferenceUpload, requestId: string, signal: AbortSignal): Promise<Transcription> {
    return this.analysis.transcribe({ path: upload.path }, { requestId, filename: upload.filename, contentType: upload.mimeType, sizeBytes: upload.sizeBytes }, signal);
  }

  list(ownerKeyId: string, limit: number): Promise<ReferenceRecord[]> {
    return this.repo.list(ownerKeyId, limit);
  }

  /** The owner's live clip; REFERENCE_NOT_FOUND otherwise (another owner's clip is not found either). */
  async get(ownerKeyId: string, referenceId: string): Promise<ReferenceRecord> {
    const record = await this.repo.get(ownerKeyId, referenceId);
    if (!record) throw new TtsError('REFERENCE_NOT_FOUND', undefined, { loc: ['path', 'reference_id'] });
    return record;
  }

  /** The owner's live clip and its bytes (cloning). */
  async audio(ownerKeyId: string, referenceId: string): Promise<{ record: ReferenceRecord; audio: Buffer }> {
    const found = await this.repo.getAudio(ownerKeyId, referenceId);
    if (!found) throw new TtsError('REFERENCE_NOT_FOUND', undefined, { loc: ['body', 'reference_id'] });
    return found;
  }

  /** Deletes every clip of the owner; returns how many. */
  deleteOwner(ownerKeyId: string): Promise<number> {
    return this.repo.deleteOwner(ownerKeyId);
  }

  async delete(ownerKeyId: string, referenceId: string): Promise<void> {
    if (!(await this.repo.delete(ownerKeyId, referenceId))) throw new TtsError('REFERENCE_NOT_FOUND', undefined, { loc: ['path', 'reference_id'] });
  }
}

/** Whether the clip meets the guideline. */
export function passed(analysis: ReferenceAnalysis): boolean {
  return analysis.failedChecks.length === 0;
}

/** What is kept of the analysis with a stored clip. */
function storedAnalysis(a: ReferenceAnalysis): Record<string, unknown> {
  return {
    warnings: a.warnings,
    failed_checks: a.failedChecks,
    speech_ratio: a.speechRatio,
    snr_db: a.snrDb,
    speech_level_dbfs: a.speechLevelDbfs,
    median_f0_hz: a.medianF0Hz,
    f0_p10_hz: a.f0P10Hz,
    f0_p90_hz: a.f0P90Hz,
    words_per_minute: a.wordsPerMinute,
    speakers_estimate: a.speakersEstimate,
    speaker_windows: a.speakerWindows,
    speaker_change_score: a.speakerChangeScore,
  };
}

/** The JSON of a validation (POST /api/reference/validate). */
export function validationJson(v: ReferenceValidation): Record<string, unknown> {
  const a = v.analysis;
  return {
    ok: true,
    passed: passed(a),
    reference_guideline: REFERENCE_GUIDELINE_JSON,
    audio: {
      suffix: a.audio?.suffix ?? '',
      duration_sec: round(a.audio?.durationSec ?? 0, 3),
      sample_rate: a.audio?.sampleRate ?? 0,
      channels: a.audio?.channels ?? 0,
      codec: a.audio?.codec ?? '',
      container: a.audio?.container ?? '',
    },
    warnings: a.warnings.map((w) => ({ code: w.code, message: w.message })),
    failed_checks: a.failedChecks,
    metrics: {
      speech_ratio: round(a.speechRatio, 3),
      leading_silence_sec: round(a.leadingSilenceSec, 3),
      trailing_silence_sec: round(a.trailingSilenceSec, 3),
      peak_dbfs: round(a.peakDbfs, 2),
      speech_level_dbfs: round(a.speechLevelDbfs, 2),
      clipped_ratio: round(a.clippedRatio, 5),
      snr_db: round(a.snrDb, 1),
      speakers_estimate: a.speakersEstimate,
      median_f0_hz: round(a.medianF0Hz, 1),
      f0_p10_hz: round(a.f0P10Hz, 1),
      f0_p90_hz: round(a.f0P90Hz, 1),
      words_per_minute: round(a.wordsPerMinute, 1),
      speaker_windows: a.speakerWindows,
      speaker_change_score: round(a.speakerChangeScore, 3),
      analysed_sec: round(a.analysedSec, 3),
      compute_ms: round(a.computeSec * 1000, 1),
    },
    transcription: a.transcription ? transcriptionJson(a.transcription) : null,
    reference_id: v.stored?.referenceId ?? null,
    expires_at: v.stored?.expiresAt.toISOString() ?? null,
    not_stored_reason: v.notStoredReason,
  };
}

/** The JSON of a transcription. */
export function transcriptionJson(t: Transcription): Record<string, unknown> {
  return {
    text: t.text,
    language: t.language,
    confidence: round(t.confidence, 4),
    words: t.words.map((w) => ({ word: w.word, start_sec: round(w.startSec, 3), end_sec: round(w.endSec, 3), confidence: round(w.confidence, 4) })),
    duration_sec: round(t.durationSec, 3),
    model: t.model,
  };
}

/** The JSON of a stored clip. */
export function referenceJson(r: ReferenceRecord): Record<string, unknown> {
  const a = r.analysis;
  return {
    reference_id: r.referenceId,
    created_at: r.createdAt.toISOString(),
    expires_at: r.expiresAt.toISOString(),
    filename: r.filename,
    suffix: r.suffix,
    size_bytes: r.sizeBytes,
    sha256: r.sha256,
    duration_sec: round(r.durationSec, 3),
    sample_rate: r.sampleRate,
    channels: r.channels,
    passed: r.passed,
    warnings: Array.isArray(a['warnings']) ? a['warnings'] : [],
  };
}

