/**
 * The reference audio panel of the public page: a clip uploaded or recorded, checked by POST
 * /api/reference/validate (kept for the caller, transcribed), the result in words, the speaker's
 * consent (with the current terms, accepted through POST /api/compliance/terms/accept), then
 * "speak in this voice": the page's text as a web job in clone mode. Cloning needs an identity
 * that owns clips: a studio session or an API key; without one the panel says where to get one.
 */
import { useEffect, useState } from 'preact/hooks';
import { getJson, request, type AnalysisFeatures, type ReferenceValidation, type Terms } from '../../lib/api.js';
import { messageFor } from '../../lib/messages.js';
import type { Schema } from '../../lib/schema.js';
import { KeyGate } from '../../components/key-gate.js';
import { ReferenceCheck } from './reference-check.js';
import { canRecord, useRecorder } from './use-recorder.js';

/** The identity cloning runs under. */
export type CloneAuth = 'studio' | 'apiKey';

/** What the panel needs from the page. */
export interface ReferencePanelProps {
  /** The identity of the clips, or undefined when the visitor has none. */
  readonly auth: CloneAuth | undefined;
  /** True when the page has text to speak and nothing running. */
  readonly canSpeak: boolean;
  /** Speaks the page's text like the clip (consent given and terms accepted). */
  readonly onSpeak: (referenceId: string) => void;
  /** What the server's analysis can do (GET /api/capabilities), undefined until known. */
  readonly analysis: AnalysisFeatures | undefined;
}

/** Cloning cannot work on this server: which models are missing and how they are installed. */
function CloningUnavailable({ analysis }: { analysis: AnalysisFeatures }) {
  const missing = [...new Set([...analysis.vad.missing_models, ...analysis.cloning.missing_models])];
  return (
    <div class="clone-unavailable stack" id="clone-unavailable">
      <p class="warn">
        Cloning is not available on this server right now:{' '}
        {missing.length > 0 ? (
          <>
            its inference nodes lack the voice analysis models it needs ({missing.join(', ')}). An administrator installs them with <code>npm run models -- install --all</code>, run
            with the data folder the nodes use (DATA_DIR or TTS_MODEL_DIR), then restarts the nodes.
          </>
        ) : (
          analysis.cloning.reason ?? 'no inference node can analyse voices.'
        )}
      </p>
      <p class="hint">Speaking with the voices above works as usual.</p>
    </div>
  );
}

function NoIdentity() {
  return (
    <>
      <p>
        Cloning keeps your reference clip for you, so it needs a studio session or an API key. <a href="/studio">Sign in to the studio, or continue there as a guest</a>,
        then come back to this page; or give an API key.
      </p>
      <KeyGate kind="apiKey">{null}</KeyGate>
    </>
  );
}

function Panel({ auth, canSpeak, onSpeak, analysis }: ReferencePanelProps & { auth: CloneAuth }) {
  const recorder = useRecorder();
  const [checking, setChecking] = useState(false);
  const [result, setResult] = useState<ReferenceValidation | undefined>();
  const [terms, setTerms] = useState<Terms | undefined>();
  const [consent, setConsent] = useState(false);
  const [error, setError] = useState('');
  const [status, setStatus] = useState('');

  useEffect(() => {
    getJson<Terms>('/api/compliance/terms').then(setTerms, (err: unknown) => setError(messageFor(err)));
  }, []);

  async function validate(file: File) {
    setError('');
    setResult(undefined);
    setConsent(false);
    setChecking(true);
    setStatus('Checking the clip…');
    try {
      const form = new FormData();
      form.append('ref_audio', file, file.name);
      const { body } = await request<ReferenceValidation>('POST', '/api/reference/validate?transcribe=true', { auth, form });
      setResult(body);
      setStatus(body.passed ? 'The clip passed the check.' : 'The clip did not pass the check.');
    } catch (err) {
      setError(messageFor(err));
      setStatus('');
    } finally {
      setChecking(false);
    }
  }

  async function toggleRecording() {
    setError('');
    try {
      if (recorder.recording) {
        const clip = await recorder.stop();
        await validate(clip);
      } else {
        await recorder.start();
        setStatus('Recording…');
      }
    } catch {
      setError('The microphone could not be used. Allow it in the browser, or upload a clip.');
      setStatus('');
    }
  }

  async function speak() {
    if (!result?.reference_id || !terms || !consent) return;
    setError('');
    try {
      // Consent rests on the terms: record that this identity accepts the current version.
      await request('POST', '/api/compliance/terms/accept', { auth, json: { version: terms.version } satisfies Schema<'TermsAcceptRequest'> });
      onSpeak(result.reference_id);
    } catch (err) {
      setError(messageFor(err));
    }
  }

  const ready = result?.passed && result.reference_id && consent && terms && canSpeak && !checking && !recorder.recording;
  const why = !consent ? 'Confirm the consent above first.' : !canSpeak ? 'Type the text to speak above first.' : '';
  return (
    <div class="reference-panel stack">
      <p class="hint">A clip of 3 to 10 seconds of one person speaking clearly, mono, at least 16 kHz. It is kept for you for 24 hours.</p>
      <div class="row">
        <div class="field">
          <label for="ref-file">Upload a clip</label>
          <input
            id="ref-file"
            type="file"
            accept="audio/*,.wav,.mp3,.flac,.ogg,.opus,.m4a,.webm"
            disabled={checking || recorder.recording}
            onChange={(e) => {
              const file = e.currentTarget.files?.[0];
              if (file) void validate(file);
            }}
          />
        </div>
        {canRecord() && (
          <div class="field">
            <span class="label">Or record one</span>
            <button type="button" class={recorder.recording ? 'recording' : 'secondary'} onClick={() => void toggleRecording()} disabled={checking} aria-pressed={recorder.recording}>
              {recorder.recording ? `Stop recording (${recorder.seconds} s)` : 'Record'}
            </button>
          </div>
        )}
      </div>
      <div role="status" aria-live="polite" class="status">
        {recorder.recording ? <p class="recording-state">Recording: {recorder.seconds} s</p> : status && <p>{status}</p>}
      </div>
      {result && <ReferenceCheck result={result} transcriptionUnavailable={analysis?.transcription.available === false} />}
      {result && !result.passed && (
        <p class="warn not-clonable">This clip did not pass the check, so it cannot be used to clone a voice. Record or upload another clip.</p>
      )}
      {result?.passed && result.reference_id && terms && (
        <>
          <details class="terms">
            <summary>{terms.title} (version {terms.version})</summary>
            {terms.sections.map((s) => (
              <p key={s.heading}>
                <strong>{s.heading}.</strong> {s.text}
              </p>
            ))}
          </details>
          <div class="check">
            <input id="consent" type="checkbox" checked={consent} onChange={(e) => setConsent(e.currentTarget.checked)} />
            <label for="consent">I have the consent of the person speaking in this clip to clone their voice, and I accept the terms of use.</label>
          </div>
          <div class="actions">
            <button type="button" onClick={() => void speak()} disabled={!ready} aria-describedby={why ? 'clone-why' : undefined}>
              Speak in this voice
            </button>
            {why && (
              <span id="clone-why" class="hint">
                {why}
              </span>
            )}
          </div>
        </>
      )}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

/** The panel, or what to do to use it. */
export function ReferencePanel(props: ReferencePanelProps) {
  return (
    <details class="card clone-card">
      <summary>
        <h2>Speak in a voice of your own</h2>
        {props.analysis && !props.analysis.cloning.available && <span class="hint"> Not available on this server: open for why.</span>}
      </summary>
      {props.analysis && !props.analysis.cloning.available ? <CloningUnavailable analysis={props.analysis} /> : props.auth ? <Panel {...props} auth={props.auth} /> : <NoIdentity />}
    </details>
  );
}
