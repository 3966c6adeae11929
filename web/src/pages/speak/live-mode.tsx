/**
 * Live mode of the public page (API keys): what the person types in the page's text box is spoken
 * while they type. Pieces go to the speech WebSocket on word boundaries, a sentence end or a pause
 * flushes (live-text.ts); the audio plays as it arrives (live-player.ts) with the word being heard
 * highlighted from the server's word timings; Stop (or Escape in the text box) silences the audio
 * at once and cancels the context at the server. Loaded on first use, so the page's first load
 * does not carry it. The section records, for tests and diagnostics, when the first audio of a run
 * arrived (`data-first-audio-at`, performance.now() milliseconds), the frames played, the words
 * highlighted, and the contexts the server confirmed cancelled.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { RefObject } from 'preact';
import { ApiError } from '../../lib/api.js';
import { messageFor } from '../../lib/messages.js';
import { LivePlayer } from './live-player.js';
import { openLiveSpeech, type LiveSpeech, type LiveWord } from './live-speech.js';
import { TypingFeed, type Piece } from './live-text.js';

/** What the page gives live mode. */
export interface LiveModeProps {
  /** The text box's text now. */
  readonly text: string;
  readonly voice: string;
  readonly speed: number;
  /** The text box (Escape in it stops the speech). */
  readonly textBox: RefObject<HTMLTextAreaElement | null>;
}

type Status = 'listening' | 'connecting' | 'speaking' | 'stopped' | 'closed' | 'error';

/** A pause in typing this long flushes what was typed. */
const PAUSE_MS = 700;

/** A word of the context shown, and where it is in that context's text (when it was found there). */
interface PlacedWord extends LiveWord {
  readonly from: number;
  readonly to: number;
}

/** The text a context was sent and its words so far. */
interface Transcript {
  readonly contextId: string;
  text: string;
  readonly words: PlacedWord[];
  /** Where the search for the next word starts. */
  cursor: number;
}

const STATUS_TEXT: Readonly<Record<Status, string>> = {
  listening: 'Live: type and it is spoken as you write.',
  connecting: 'Live: connecting…',
  speaking: 'Live: speaking…',
  stopped: 'Stopped. Type again to go on.',
  closed: 'Live connection closed; it reopens when you type.',
  error: 'Live mode stopped on an error.',
};

/** Finds `word` in the context's text after its cursor (case-insensitive), so it can be highlighted. */
function place(t: Transcript, w: LiveWord): PlacedWord {
  const at = t.text.toLowerCase().indexOf(w.word.toLowerCase(), t.cursor);
  if (at < 0) return { ...w, from: -1, to: -1 };
  t.cursor = at + w.word.length;
  return { ...w, from: at, to: at + w.word.length };
}

/** The live mode panel. */
export function LiveMode({ text, voice, speed, textBox }: LiveModeProps) {
  const section = useRef<HTMLElement>(null);
  const player = useRef<LivePlayer | undefined>(undefined);
  const feed = useRef(new TypingFeed(text));
  const session = useRef<Promise<LiveSpeech | undefined> | undefined>(undefined);
  const context = useRef<Transcript | undefined>(undefined);
  const contexts = useRef(0);
  const latestText = useRef(text);
  const pause = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const [status, setStatus] = useState<Status>('listening');
  const [error, setError] = useState('');
  const [shown, setShown] = useState<{ text: string; from: number; to: number }>({ text: '', from: -1, to: -1 });
  const [level, setLevel] = useState(0);
  latestText.current = text;

  const mark = (name: string, value: number | string) => {
    if (section.current) section.current.dataset[name] = String(value);
  };
  const bump = (name: string) => mark(name, Number(section.current?.dataset[name] ?? 0) + 1);

  /** The open session, opening one (with the settings now) when there is none. */
  function connect(): Promise<LiveSpeech | undefined> {
    if (session.current) return session.current;
    setStatus('connecting');
    const opening = openLiveSpeech(
      { voice, speed },
      {
        audio(contextId, pcm, sampleRate) {
          const t = context.current;
          // Audio of a context the person stopped is never played.
          if (!t || t.contextId !== contextId || !player.current) return;
          if (section.current?.dataset['firstAudioAt'] === undefined) mark('firstAudioAt', performance.now());
          player.current.play(contextId, pcm, sampleRate);
          bump('frames');
        },
        words(contextId, words) {
          const t = context.current;
          if (t && t.contextId === contextId) for (const w of words) t.words.push(place(t, w));
        },
        done(_contextId, outcome) {
          if (outcome === 'cancelled') bump('cancelled');
        },
        error(code, message) {
          // An idle session's end is no error: the next text opens another.
          if (code !== 'STREAM_INACTIVITY_TIMEOUT') setError(messageFor(new ApiError(0, code, message, undefined)));
        },
        closed(code, reason) {
          session.current = undefined;
          context.current = undefined;
          // A refusal's reason came in its error message; a close without one is shown here.
          if (code !== 1000 && code !== 1001 && code < 4000) setError(reason || `The live connection closed (${code}).`);
          setStatus('closed');
        },
      },
    ).then(
      (s) => {
        setStatus('listening');
        return s;
      },
      (err: unknown) => {
        session.current = undefined;
        context.current = undefined;
        setError(messageFor(err));
        setStatus('error');
        return undefined;
      },
    );
    session.current = opening;
    return opening;
  }

  function deliver(piece: Piece): void {
    if (!context.current) {
      context.current = { contextId: `live-${++contexts.current}`, text: '', words: [], cursor: 0 };
      mark('context', context.current.contextId);
    }
    const t = context.current;
    t.text += piece.text;
    setShown({ text: t.text, from: -1, to: -1 });
    setError('');
    setStatus((s) => (s === 'stopped' || s === 'closed' || s === 'error' ? 'listening' : s));
    void connect().then((s) => s?.send(t.contextId, piece.text, piece.flush));
  }

  /** Barge-in: silence now, cancel at the server; what was typed so far is not spoken. */
  function stop(): void {
    player.current?.stop();
    mark('queuedAfterStop', player.current?.queued ?? 0);
    mark('stoppedAt', performance.now());
    clearTimeout(pause.current);
    feed.current.restart(latestText.current);
    const t = context.current;
    context.current = undefined;
    if (t) void session.current?.then((s) => s?.cancel(t.contextId));
    setShown((s) => ({ ...s, from: -1, to: -1 }));
    setStatus('stopped');
  }

  // The player starts with live mode (turned on by a click: the browser lets its audio start).
  useEffect(() => {
    const p = new LivePlayer();
    player.current = p;
    void p.resume();
    let frame = 0;
    let shownWord = -1;
    let shownLevel = 0;
    const tick = () => {
      frame = requestAnimationFrame(tick);
      const t = context.current;
      const at = p.position();
      let index = -1;
      if (t && at && at.contextId === t.contextId) index = t.words.findIndex((w, i) => w.start <= at.seconds && at.seconds < Math.max(w.end, t.words[i + 1]?.start ?? w.end));
      if (index !== shownWord) {
        shownWord = index;
        const w = index >= 0 && t ? t.words[index] : undefined;
        if (w && w.from >= 0) {
          bump('highlighted');
          setShown({ text: t?.text ?? '', from: w.from, to: w.to });
        }
      }
      const l = Math.round(p.level() * 20) / 20;
      if (l !== shownLevel) {
        shownLevel = l;
        setLevel(l);
      }
      setStatus((s) => (s === 'listening' && p.queued > 0 ? 'speaking' : s === 'speaking' && p.queued === 0 ? 'listening' : s));
    };
    frame = requestAnimationFrame(tick);
    return () => {
      cancelAnimationFrame(frame);
      clearTimeout(pause.current);
      void session.current?.then((s) => s?.close());
      session.current = undefined;
      void p.close();
    };
  }, []);

  // Escape in the text box stops the speech. Any other key resumes the audio clock: some browsers
  // start it only inside a gesture's handler, and the module loads after the click that turned live on.
  useEffect(() => {
    const box = textBox.current;
    if (!box) return undefined;
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape') {
        void player.current?.resume();
      } else {
        e.preventDefault();
        stop();
      }
    };
    box.addEventListener('keydown', onKey);
    return () => box.removeEventListener('keydown', onKey);
  }, [textBox]);

  // A new voice or speed: the next text opens a session with it (the audio queued plays on).
  useEffect(() => {
    const open = session.current;
    if (!open) return;
    session.current = undefined;
    context.current = undefined;
    void open.then((s) => s?.close());
  }, [voice, speed]);

  // Each change of the text: complete words go now, the rest after a pause.
  useEffect(() => {
    const piece = feed.current.typed(text);
    if (piece) deliver(piece);
    clearTimeout(pause.current);
    pause.current = setTimeout(() => {
      const rest = feed.current.paused(latestText.current);
      if (rest && (rest.text !== '' || context.current)) deliver(rest);
    }, PAUSE_MS);
  }, [text]);

  const { text: said, from, to } = shown;
  return (
    <section ref={section} id="live" class="live" aria-labelledby="live-title">
      <div class="live-bar">
        <h2 id="live-title">Live</h2>
        <button type="button" class="stop" onClick={stop} aria-keyshortcuts="Escape" aria-describedby="live-help">
          Stop
        </button>
        <meter class="live-level" min={0} max={1} value={level} aria-label="Output level" />
      </div>
      <p id="live-help" class="hint">
        What you type from now on is spoken as you write: each word once you type the space after it, a sentence when it ends, the rest when you pause. Stop (or Escape in the text box) silences it at once.
      </p>
      <div role="status" aria-live="polite" class="status">
        <p>{STATUS_TEXT[status]}</p>
      </div>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <p class="hint">Spoken text</p>
      <p class="live-transcript">
        {from >= 0 ? (
          <>
            <span class="said">{said.slice(0, from)}</span>
            <mark>{said.slice(from, to)}</mark>
            {said.slice(to)}
          </>
        ) : (
          said || '…'
        )}
      </p>
    </section>
  );
}
