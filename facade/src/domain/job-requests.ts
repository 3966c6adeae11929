/**
 * Turning job submissions into job specs, with the same checks synchronous synthesis makes at
 * the door: text present, voice known to the ready nodes.
 */
import type { JobSpec } from '@tts/proto/scheduler';
import { TtsError } from '@tts/common';
import type { FacadeDeps } from '../operation.js';
import { jobSpecOf, speechParamsFor, type SpeechFields } from './speech.js';

/** The fields a job submission carries (JSON for the API family, form fields for the web family). */
export interface JobSubmission extends SpeechFields {
  readonly mode?: string | undefined;
  readonly consentConfirmed?: boolean | undefined;
}

/** Validates a submission and builds its spec. Throws TTS_TEXT_EMPTY / TTS_VOICE_NOT_FOUND (422). */
export async function jobSpecFor(deps: FacadeDeps, requestId: string, s: JobSubmission): Promise<JobSpec> {
  const params = await speechParamsFor(deps.cluster, deps.config.defaultVoice, requestId, '', s);
  const voice = params.voice;
  // A job runs later: refuse an unknown voice now rather than fail the job.
  if (voice !== '') {
    const snap = await deps.cluster.snapshot();
    if (snap.voices.length > 0 && !snap.voices.some((v) => v.id.toLowerCase() === voice.toLowerCase() || v.id.toLowerCase().endsWith(`:${voice.toLowerCase()}`))) {
      throw new TtsError('TTS_VOICE_NOT_FOUND', `Voice "${s.voice}" does not exist.`, { loc: ['body', 'voice'] });
    }
  }
  return jobSpecOf(params, s.mode ?? 'auto', s.consentConfirmed ?? false);
}

/** Parses a form's boolean text ("true", "1", "on", ...); undefined when absent. */
export function formBoolean(value: unknown): boolean | undefined {
  if (value === undefined || value === '') return undefined;
  if (typeof value === 'boolean') return value;
  return ['true', '1', 'on', 'yes'].includes(String(value).toLowerCase());
}
