/** The result of POST /api/reference/validate in words: passed or not, each failed check and warning, the transcript. */
import type { ReferenceValidation } from '../../lib/api.js';

/** A guideline check a clip can fail (its stable code). */
type FailedCheck = ReferenceValidation['failed_checks'][number];

/** Each guideline check a clip can fail, in words. */
const FAILED_CHECK: Readonly<Record<FailedCheck, string>> = {
  TOO_SHORT: 'The clip is too short: record at least 3 seconds of speech.',
  TOO_LONG: 'The clip is too long: keep it to 10 seconds at most.',
  NOT_MONO: 'The clip is not mono: record or export one channel.',
  LOW_SAMPLE_RATE: 'The sample rate is too low: use at least 16 kHz.',
};

/** The validation of a clip, for the person who sent it. */
export function ReferenceCheck({ result, transcriptionUnavailable = false }: { result: ReferenceValidation; transcriptionUnavailable?: boolean }) {
  return (
    <div class="reference-check" data-passed={String(result.passed)}>
      <p class={result.passed ? 'ok' : 'warn'}>
        <strong>{result.passed ? 'The clip meets the reference guideline.' : 'The clip does not meet the reference guideline.'}</strong> {result.audio.duration_sec.toFixed(1)} s,{' '}
        {result.audio.sample_rate} Hz, {result.audio.channels === 1 ? 'mono' : `${result.audio.channels} channels`}.
      </p>
      {result.failed_checks.length > 0 && (
        <>
          <h3>Failed checks</h3>
          <ul class="failed-checks">
            {result.failed_checks.map((c) => (
              <li key={c} data-code={c}>
                {FAILED_CHECK[c]}
              </li>
            ))}
          </ul>
        </>
      )}
      {result.warnings.length > 0 && (
        <>
          <h3>Warnings</h3>
          <ul class="warnings">
            {result.warnings.map((w) => (
              <li key={w.code} data-code={w.code}>
                {w.message}
              </li>
            ))}
          </ul>
        </>
      )}
      <h3>Transcript</h3>
      <p class="transcript">{result.transcription ? (result.transcription.text || 'No words were recognized.') : transcriptionUnavailable ? 'Not transcribed: speech recognition is not installed on this server.' : 'Not transcribed.'}</p>
      {result.reference_id === null && <p class="warn">The clip was not kept{result.not_stored_reason ? `: ${result.not_stored_reason}` : ''}. Upload a shorter clip to clone it.</p>}
    </div>
  );
}
