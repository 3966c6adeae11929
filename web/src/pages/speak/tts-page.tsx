/**
 * The public page: text with a counter and the limit, a voice picker grouped by engine and
 * language, the browser check (a proof of work in a Web Worker) with a visible state, a web job
 * followed through its events, then a player and a download link; the remaining rate limit and a
 * clear message for every error. A studio session or an API key submits under its own identity
 * (no browser check), may clone a voice from a reference clip (the reference panel), and a studio
 * session may apply one of its presets (`/?preset=<preset_id>`); an API key may also stream the
 * speech, played while it arrives, or turn on live mode (live-mode.tsx, loaded on first use): the
 * text spoken while it is typed.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { getJson, request, type AnalysisFeatures, type CallerLimits, type Voice, type WebConfig } from '../../lib/api.js';
import type { Schema } from '../../lib/schema.js';
import { useCredentials } from '../../lib/credentials.js';
import { messageFor } from '../../lib/messages.js';
import { ForgetKey } from '../../components/key-gate.js';
import { VoiceOptions } from '../../components/voice-options.js';
import { Waveform } from '../../components/waveform.js';
import { ReferencePanel } from './reference-panel.js';
import type { FunctionComponent } from 'preact';
import type { LiveModeProps } from './live-mode.js';
import { canStream, streamSpeech } from './stream-speech.js';
import { usePreset } from './use-preset.js';
import { runWebJob, type WebJobAuth, type WebJobForm } from './web-jobs.js';

type Phase = 'idle' | 'verifying' | 'queued' | 'running' | 'streaming' | 'done' | 'error';

interface Result { readonly audioUrl: string; readonly downloadName: string; readonly captionsUrl: { readonly vtt: string; readonly srt: string } }

/** Formats a browser plays (raw PCM is for programs). */
const PLAYABLE = ['wav', 'mp3', 'opus', 'aac', 'flac'];
const EXTENSION: Readonly<Record<string, string>> = { wav: 'wav', mp3: 'mp3', opus: 'ogg', aac: 'm4a', flac: 'flac' };

/** The public text-to-speech page (route `/`). */
export function TtsPage() {
  const creds = useCredentials();
  const { query } = useLocation();
  const auth: WebJobAuth = creds.studioToken ? 'studio' : creds.apiKey ? 'apiKey' : 'none';
  const presetState = usePreset(query['preset'], creds.studioToken);
  const preset = presetState.kind === 'ready' ? presetState.preset : undefined;
  const applied = useRef('');
  const streamAudio = useRef<HTMLAudioElement>(null);
  const textBox = useRef<HTMLTextAreaElement>(null);
  const [config, setConfig] = useState<WebConfig | undefined>();
  const [voices, setVoices] = useState<Voice[]>([]);
  const [text, setText] = useState('');
  const [voice, setVoice] = useState('');
  const [speed, setSpeed] = useState(1);
  const [format, setFormat] = useState<Schema<'AudioFormat'>>('wav');
  const [phase, setPhase] = useState<Phase>('idle');
  const [progress, setProgress] = useState(0);
  const [error, setError] = useState('');
  const [remaining, setRemaining] = useState<string>('');
  const [result, setResult] = useState<Result | undefined>();
  const [previewing, setPreviewing] = useState(false);
  const [previewUrl, setPreviewUrl] = useState<string | undefined>();
  const [streamed, setStreamed] = useState(false);
  const [analysis, setAnalysis] = useState<AnalysisFeatures | undefined>();
  /** Live mode's panel once its code is loaded; `live` while it is on. */
  const [livePanel, setLivePanel] = useState<{ readonly Panel: FunctionComponent<LiveModeProps> } | undefined>();
  const [live, setLive] = useState(false);
  /** The caller's own limits (the web config asked with its credential): a key's or a studio user's tier, else the anonymous visitor's. */
  const [own, setOwn] = useState<CallerLimits | undefined>();

  // What the server's analysis can do: the reference panel offers cloning only when it works.
  useEffect(() => {
    getJson<Schema<'CapabilitiesResponse'>>('/api/capabilities').then((c) => setAnalysis(c.analysis), () => setAnalysis(undefined));
  }, []);

  useEffect(() => {
    setOwn(undefined);
    request<WebConfig>('GET', '/api/web/config', { auth }).then(({ body }) => setOwn(body.caller_limits), (err: unknown) => setError(messageFor(err)));
  }, [auth, creds.studioToken, creds.apiKey]);

  useEffect(() => {
    let stopped = false;
    // Voices appear as the inference nodes load them: until one is there, ask again.
    const load = async (): Promise<void> => {
      try {
        const [c, v] = await Promise.all([getJson<WebConfig>('/api/web/config'), getJson<Schema<'VoiceList'>>('/v1/audio/voices')]);
        if (stopped) return;
        setConfig(c);
        if (v.voices.length === 0) {
          setTimeout(() => void load(), 2000);
          return;
        }
        setError('');
        setVoices(v.voices);
        setVoice(v.voices.some((x) => x.id === v.default_voice) ? v.default_voice : (v.voices[0]?.id ?? ''));
      } catch (err) {
        if (stopped) return;
        setError(messageFor(err));
        setTimeout(() => void load(), 5000);
      }
    };
    void load();
    return () => {
      stopped = true;
    };
  }, []);

  // The preset fills voice, speed and format once (after the voices are there); the person may change them.
  useEffect(() => {
    if (!preset || voices.length === 0 || applied.current === preset.preset_id) return;
    applied.current = preset.preset_id;
    if (preset.voice && voices.some((v) => v.id === preset.voice)) setVoice(preset.voice);
    if (preset.speed !== null) setSpeed(preset.speed);
    const presetFormat = (config?.formats ?? ['wav']).find((f) => f === preset.format);
    if (presetFormat) setFormat(presetFormat);
  }, [preset, voices, config]);

  const formats = (config?.formats ?? ['wav']).filter((f) => PLAYABLE.includes(f));
  const speedRange = config?.speed ?? { min: 0.25, max: 4, default: 1 };
  const limit = own?.max_text_chars ?? 0;
  const tooLong = limit > 0 && text.length > limit;
  const busy = phase === 'verifying' || phase === 'queued' || phase === 'running' || phase === 'streaming';
  const ready = config !== undefined && voice !== '' && text.trim() !== '' && !tooLong && !busy;
  /** Why Speak is disabled, in words ('' when it is not, or while it works). */
  const whyNot = busy || ready
    ? ''
    : config === undefined
      ? 'Loading the settings…'
      : voice === ''
        ? 'Waiting for the voices to load…'
        : text.trim() === ''
          ? 'Type some text to speak first.'
          : `The text has ${text.length} characters; your limit is ${limit}. Remove ${text.length - limit} to speak it.`;
  const per = (windowSec: number): string => (windowSec === 60 ? 'minute' : `${windowSec} seconds`);
  const rateText = !own
    ? ''
    : own.identity === 'anonymous'
      ? `Up to ${own.rate_limit.limit} requests per ${per(own.rate_limit.window_sec)}`
      : `Your limits: ${own.max_text_chars} characters per request, ${own.rate_limit.limit} requests per ${per(own.rate_limit.window_sec)}`;

  function chooseVoice(id: string) {
    setVoice(id);
    setPreviewUrl(undefined);
  }

  /** A short sample of the chosen voice (a small web job), played at once. */
  async function preview() {
    const v = voices.find((x) => x.id === voice);
    if (!v || busy || previewing) return;
    setError('');
    setPreviewing(true);
    try {
      const done = await runWebJob(
        { text: `Hello, this is ${v.name}.`, voice: v.id, speed: speed.toFixed(2), format: 'mp3' },
        { onVerifying: () => undefined, onQueued: (created) => setRemaining(`${created.rate_limit.remaining} of ${created.rate_limit.limit} requests left this minute`), onRunning: () => undefined },
        config?.poll_interval_ms,
        auth,
      );
      setPreviewUrl(done.audioUrl);
    } catch (err) {
      setError(messageFor(err));
    } finally {
      setPreviewing(false);
    }
  }

  async function submit(e: Event) {
    e.preventDefault();
    if (!ready) return;
    await run({ text, voice, speed: speed.toFixed(2), format, ...(preset ? { preset_id: preset.preset_id } : {}) });
  }

  /** Speaks the text like the stored clip `referenceId` (consent given in the reference panel). */
  async function speakLike(referenceId: string) {
    if (!ready || auth === 'none') return;
    await run({ text, voice, speed: speed.toFixed(2), format, mode: 'clone', reference_id: referenceId, consent_confirmed: 'true' });
  }

  /** Streams the text (API key only): played while the response arrives. */
  async function stream() {
    const audio = streamAudio.current;
    if (!ready || !audio) return;
    setError('');
    setResult(undefined);
    setPhase('streaming');
    setStreamed(true);
    try {
      await streamSpeech(audio, { input: text, voice, speed }, (rate) => {
        if (rate) setRemaining(`${rate.remaining} of ${rate.limit} requests left (resets in ${rate.resetSec} s)`);
      });
      setPhase('done');
    } catch (err) {
      setError(messageFor(err));
      setPhase('error');
    }
  }

  /** Turns live mode on (loading its code the first time) or off. */
  function toggleLive() {
    if (live) {
      setLive(false);
      return;
    }
    setError('');
    if (livePanel) {
      setLive(true);
      return;
    }
    import('./live-mode.js').then(
      (m) => {
        setLivePanel({ Panel: m.LiveMode });
        setLive(true);
      },
      () => setError('Live mode could not be loaded. Reload the page and try again.'),
    );
  }

  async function run(fields: WebJobForm) {
    setError('');
    setResult(undefined);
    setProgress(0);
    // A studio session or API key needs no browser check: the job is being queued at once.
    if (auth !== 'none') setPhase('queued');
    try {
      const done = await runWebJob(
        fields,
        {
          onVerifying: () => setPhase('verifying'),
          onQueued: (created) => {
            setPhase('queued');
            setRemaining(`${created.rate_limit.remaining} of ${created.rate_limit.limit} requests left this minute`);
          },
          onRunning: (p) => {
            setPhase('running');
            setProgress(p);
          },
        },
        config?.poll_interval_ms,
        auth,
      );
      setResult({ audioUrl: done.audioUrl, downloadName: `speech-${done.jobId}.${EXTENSION[format] ?? format}`, captionsUrl: done.captionsUrl });
      setProgress(1);
      setPhase('done');
    } catch (err) {
      setError(messageFor(err));
      setPhase('error');
    }
  }

  return (
    <div class="stack">
      <form class="card" onSubmit={(e) => void submit(e)} aria-describedby="status">
        <h1>Turn text into speech</h1>
        {auth === 'studio' && <p class="hint identity">Speaking with your studio session.</p>}
        {auth === 'apiKey' && (
          <div class="row identity">
            <p class="hint">Speaking with your API key (kept in this tab only).</p>
            <ForgetKey kind="apiKey" />
          </div>
        )}
        {preset && (
          <p class="preset-note">
            Preset <strong>{preset.name}</strong> applied: its voice, speed and format.
          </p>
        )}
        {presetState.kind === 'loading' && <p class="hint">Loading the preset…</p>}
        {presetState.kind === 'needs-session' && (
          <p class="warn preset-note">
            This preset needs the studio sign-in. <a href="/studio">Sign in to the studio</a>, then choose Use on the preset again.
          </p>
        )}
        {presetState.kind === 'error' && (
          <p class="error" role="alert">
            The preset could not be loaded: {presetState.message}
          </p>
        )}
        <label for="text">Text</label>
        <textarea ref={textBox} id="text" name="text" rows={6} value={text} onInput={(e) => setText(e.currentTarget.value)} aria-describedby="counter" aria-invalid={tooLong} />
        <p id="counter" class={tooLong ? 'counter over' : 'counter'}>
          {limit > 0 ? `${text.length} / ${limit} characters` : `${text.length} characters`}
        </p>
        <label for="voice">Voice</label>
        <select id="voice" name="voice" value={voice} onChange={(e) => chooseVoice(e.currentTarget.value)} aria-busy={voices.length === 0}>
          {voices.length === 0 && <option value="">Loading voices…</option>}
          <VoiceOptions voices={voices} />
        </select>
        <div class="preview">
          <button type="button" class="secondary" onClick={() => void preview()} disabled={voice === '' || busy || previewing} aria-describedby="voice">
            {previewing ? 'Loading preview…' : 'Preview voice'}
          </button>
          {previewUrl && <audio class="preview-audio" controls autoplay src={previewUrl} aria-label="Voice preview" />}
        </div>
        <div class="row">
          <div class="field">
            <label for="speed">
              Speed <output for="speed">{speed.toFixed(2)}×</output>
            </label>
            <input id="speed" name="speed" type="range" min={Math.max(0.5, speedRange.min)} max={Math.min(2, speedRange.max)} step={0.05} value={speed} onInput={(e) => setSpeed(Number(e.currentTarget.value))} />
          </div>
          <div class="field">
            <label for="format">Format</label>
            <select id="format" name="format" value={format} onChange={(e) => setFormat(formats.find((f) => f === e.currentTarget.value) ?? format)}>
              {formats.map((f) => (
                <option key={f} value={f}>
                  {f.toUpperCase()}
                </option>
              ))}
            </select>
          </div>
        </div>
        <div class="actions">
          <button type="submit" disabled={!ready} aria-describedby={whyNot ? 'speak-why' : undefined}>
            {phase === 'verifying' ? 'Verifying your browser…' : busy ? 'Synthesizing…' : 'Speak'}
          </button>
          {creds.apiKey && canStream() && (
            <button type="button" class="secondary" onClick={() => void stream()} disabled={!ready} aria-describedby={whyNot ? 'speak-why' : undefined}>
              Stream
            </button>
          )}
          {creds.apiKey && typeof AudioContext !== 'undefined' && typeof WebSocket !== 'undefined' && (
            <button type="button" class="secondary" onClick={toggleLive} aria-pressed={live} disabled={!live && voice === ''}>
              Live
            </button>
          )}
          <span class="limit">{remaining || rateText}</span>
        </div>
        {whyNot && (
          <p id="speak-why" class="hint speak-why">
            {whyNot}
          </p>
        )}
        <div id="status" role="status" aria-live="polite" class="status">
          {phase === 'verifying' && <p>Verifying your browser…</p>}
          {phase === 'streaming' && <p>Streaming: playing while the speech arrives…</p>}
          {(phase === 'queued' || phase === 'running') && (
            <>
              <p>{phase === 'queued' ? 'Waiting in the queue…' : 'Synthesizing…'}</p>
              <progress max={1} value={progress} aria-label="Synthesis progress" />
            </>
          )}
        </div>
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        {live && creds.apiKey && livePanel && <livePanel.Panel text={text} voice={voice} speed={speed} textBox={textBox} />}
        {creds.apiKey && canStream() && <audio ref={streamAudio} id="stream-audio" class="stream-audio" hidden={!streamed} controls aria-label="Streamed speech" />}
        {result && (
          <section class="result" aria-label="Result">
            <Waveform url={result.audioUrl} />
            <audio controls src={result.audioUrl} />
            <a class="button" href={result.audioUrl} download={result.downloadName}>
              Download
            </a>
            <a class="button" href={result.captionsUrl.vtt} download>
              Captions (VTT)
            </a>
            <a class="button" href={result.captionsUrl.srt} download>
              Captions (SRT)
            </a>
          </section>
        )}
      </form>
      <ReferencePanel auth={auth === 'none' ? undefined : auth} canSpeak={ready} onSpeak={(id) => void speakLike(id)} analysis={analysis} />
    </div>
  );
}
