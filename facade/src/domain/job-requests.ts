/**
 * Turning job submissions into job specs, with the same checks synchronous synthesis makes at
 * the door: text present, voice known to the ready nodes.
 */
import type { JobSpec } from '../../../gen/tts/v1/scheduler.js';
import type { AudioFormat } from '../../../services/common/src/audio/index.js';
import { TtsError } from '../../../services/common/src/errors/tts-error.js';
import type { FacadeDeps } from '../operation.js';
import { jobSpecOf, platformVoice } from './speech.js';

/** The fields a job submission carries (JSON for the API family, form fields for the web family). */
export interface JobSubmission {
  readonly text: string;
  readonly voice?: string | undefined;
  readonly engine?: string | undefined;
  readonly mode?: string | undefined;
  readonly format?: AudioFormat | undefined;
  readonly speed?: number | undefined;
  readonly sampleRate?: number | undefined;
  readonly language?: string | undefined;
  readonly consentConfirmed?: boolean | undefined;
  readonly normalize?: boolean | undefined;
}

/** Validates a submission and builds its spec. Throws TTS_TEXT_EMPTY / TTS_VOICE_NOT_FOUND (422). */
export async function jobSpecFor(deps: FacadeDeps, requestId: string, s: JobSubmission): Promise<JobSpec> {
  if (s.text.trim() === '') throw new TtsError('TTS_TEXT_EMPTY', 'text is empty or only white space.', { loc: ['body', 'text'] });
  const engine = s.engine ?? '';
  const voice = await platformVoice(deps.cluster, s.voice ?? '', engine, deps.config.defaultVoice);
  if (voice !== '') {
    const snap = await deps.cluster.snapshot();
    if (snap.voices.length > 0 && !snap.voices.some((v) => v.id.toLowerCase() === voice.toLowerCase() || v.id.toLowerCase().endsWith(`:${voice.toLowerCase()}`))) {
      throw new TtsError('TTS_VOICE_NOT_FOUND', `Voice "${s.voice}" does not exist.`, { loc: ['body', 'voice'] });
    }
  }
  return jobSpecOf(
    {
      requestId,
      tenantId: '',
      text: s.text,
      voice,
      engine,
      speed: s.speed ?? 1,
      format: s.format ?? 'wav',
      sampleRate: s.sampleRate ?? 0,
      language: s.language ?? '',
      rawText: s.normalize === false,
      instructions: '',
    },
    s.mode ?? 'auto',
    s.consentConfirmed ?? false,
  );
}

/** Parses a form's boolean text ("true", "1", "on", ...); undefined when absent. */
export function formBoolean(value: unknown): boolean | undefined {
  if (value === undefined || value === '') return undefined;
  if (typeof value === 'boolean') return value;
  return ['true', '1', 'on', 'yes'].includes(String(value).toLowerCase());
}
