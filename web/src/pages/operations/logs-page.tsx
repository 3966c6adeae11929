/**
 * /ops/logs: the facade's live log (GET /api/logs/stream, read with fetch so the administrator
 * key travels in a header). Filters (lowest level, service, request id, text) are form controls;
 * changing one restarts the stream (its tail is read again through the new filter). The page keeps
 * the last 500 matching lines; it can be paused (new lines wait) and resumed. The log itself is
 * not a live region: a polite status says, at most every few seconds, how many lines arrived.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { messageFor } from '../../lib/messages.js';
import { count } from './format.js';
import { followLogs, type LogRecord } from './log-stream.js';
import { ErrorLine, OpsFrame } from './ops-frame.js';

/** Lines kept. */
const MAX_LINES = 500;
/** Lines of the past read when the stream (re)starts. */
const TAIL = 200;
/** How often the arrival count is announced, ms. */
const ANNOUNCE_MS = 5000;
const LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const;

/** The filters of the log. */
interface Filters {
  readonly level: string;
  readonly service: string;
  readonly requestId: string;
  readonly text: string;
}

/** A line kept for display. */
interface Line {
  readonly key: string;
  readonly record: LogRecord;
}

/** True when `r` passes the filters. */
function matches(r: LogRecord, f: Filters): boolean {
  const rank = LEVELS.indexOf((r.level ?? 'info') as (typeof LEVELS)[number]);
  if (f.level && rank >= 0 && rank < LEVELS.indexOf(f.level as (typeof LEVELS)[number])) return false;
  if (f.service && r.service !== f.service) return false;
  if (f.requestId && r.request_id !== f.requestId.trim()) return false;
  if (f.text && !JSON.stringify(r).toLowerCase().includes(f.text.toLowerCase())) return false;
  return true;
}

/** The fields of a record other than the ones shown in columns. */
function extra(r: LogRecord): string {
  const rest = Object.entries(r).filter(([k]) => !['time', 'level', 'service', 'msg', 'seq', 'request_id', 'trace_id', 'span_id', 'pid', 'hostname'].includes(k));
  return rest.length === 0 ? '' : JSON.stringify(Object.fromEntries(rest));
}

/** The live logs page. */
export function LogsPage() {
  return (
    <OpsFrame title="Live logs" intro="The facade's log as it is written: the last lines first, then each new one.">
      <LogsContent />
    </OpsFrame>
  );
}

function LogsContent() {
  const [draft, setDraft] = useState<Filters>({ level: '', service: '', requestId: '', text: '' });
  const [filters, setFilters] = useState<Filters>(draft);
  const [lines, setLines] = useState<readonly Line[]>([]);
  const [paused, setPaused] = useState(false);
  const [waiting, setWaiting] = useState(0);
  const [services, setServices] = useState<readonly string[]>([]);
  const [state, setState] = useState('Connecting…');
  const [announced, setAnnounced] = useState('');
  const [dropped, setDropped] = useState(0);
  const [error, setError] = useState('');
  const pending = useRef<Line[]>([]);
  const pausedRef = useRef(paused);
  pausedRef.current = paused;
  const arrived = useRef(0);

  // The text filters apply a moment after typing stops (each change restarts the stream).
  useEffect(() => {
    const same = (a: Filters, b: Filters): boolean => a.level === b.level && a.service === b.service && a.requestId === b.requestId && a.text === b.text;
    const t = setTimeout(() => setFilters((f) => (same(f, draft) ? f : draft)), 400);
    return () => clearTimeout(t);
  }, [draft]);

  useEffect(() => {
    const abort = new AbortController();
    pending.current = [];
    arrived.current = 0;
    setLines([]);
    setWaiting(0);
    setAnnounced('');
    setError('');
    setState('Connecting…');
    let seq = 0;
    const seen = new Set<string>();
    const flush = setInterval(() => {
      if (pausedRef.current) {
        setWaiting(pending.current.length);
        return;
      }
      if (pending.current.length === 0) return;
      const batch = pending.current;
      pending.current = [];
      setWaiting(0);
      setLines((old) => [...old, ...batch].slice(-MAX_LINES));
    }, 250);
    const announce = setInterval(() => {
      if (arrived.current === 0) return;
      setAnnounced(`${count(arrived.current)} new matching ${arrived.current === 1 ? 'line' : 'lines'}.`);
      arrived.current = 0;
    }, ANNOUNCE_MS);
    followLogs(
      TAIL,
      {
        onLine: (record) => {
          if (record.service && !seen.has(record.service)) {
            seen.add(record.service);
            setServices((s) => (s.includes(record.service!) ? s : [...s, record.service!].sort()));
          }
          if (!matches(record, filters)) return;
          arrived.current++;
          pending.current.push({ key: `${record.seq ?? ''}-${seq++}`, record });
          if (pending.current.length > MAX_LINES) pending.current.splice(0, pending.current.length - MAX_LINES);
        },
        onHeartbeat: (n) => setDropped(n),
      },
      abort.signal,
    ).then(
      () => {
        if (!abort.signal.aborted) setState('The stream ended.');
      },
      (err: unknown) => {
        if (abort.signal.aborted) return;
        setError(messageFor(err));
        setState('Disconnected.');
      },
    );
    setState('Following the log.');
    return () => {
      abort.abort();
      clearInterval(flush);
      clearInterval(announce);
    };
  }, [filters]);

  const set = (k: keyof Filters) => (e: { currentTarget: { value: string } }) => setDraft((d) => ({ ...d, [k]: e.currentTarget.value }));
  return (
    <>
      <form class="card" aria-labelledby="logs-filters" onSubmit={(e) => e.preventDefault()}>
        <h2 id="logs-filters">Filters</h2>
        <div class="row ops-toolbar">
          <div class="field">
            <label for="log-level">Lowest level</label>
            <select id="log-level" value={draft.level} onChange={(e) => setFilters(setDraftNow(setDraft, { ...draft, level: e.currentTarget.value }))}>
              <option value="">Every level</option>
              {LEVELS.map((l) => (
                <option key={l} value={l}>
                  {l} and above
                </option>
              ))}
            </select>
          </div>
          <div class="field">
            <label for="log-service">Service</label>
            <select id="log-service" value={draft.service} onChange={(e) => setFilters(setDraftNow(setDraft, { ...draft, service: e.currentTarget.value }))}>
              <option value="">Every service</option>
              {[...new Set([...services, ...(draft.service ? [draft.service] : [])])].map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>
          </div>
          <div class="field">
            <label for="log-request">Request id</label>
            <input id="log-request" type="text" autoComplete="off" spellcheck={false} value={draft.requestId} onInput={set('requestId')} />
          </div>
          <div class="field">
            <label for="log-text">Containing</label>
            <input id="log-text" type="search" autoComplete="off" value={draft.text} onInput={set('text')} />
          </div>
        </div>
        <div class="actions">
          <button type="button" aria-pressed={paused} onClick={() => setPaused((p) => !p)}>
            {paused ? 'Resume' : 'Pause'}
          </button>
          <button type="button" class="secondary" onClick={() => setLines([])}>
            Clear
          </button>
          <span class="hint" id="logs-state">
            {state} {paused ? `Paused: ${count(waiting)} new lines waiting.` : ''} {dropped > 0 ? `${count(dropped)} lines skipped by the server (read too slowly).` : ''}
          </span>
        </div>
        <p role="status" class="hint" id="logs-announce">
          {announced}
        </p>
        <ErrorLine message={error} />
      </form>
      <section class="card" aria-labelledby="logs-title">
        <h2 id="logs-title">
          Log <span class="hint">({count(lines.length)} {lines.length === 1 ? 'line' : 'lines'} shown, the last {MAX_LINES} kept)</span>
        </h2>
        <div class="ops-log" role="log" aria-live="off" aria-labelledby="logs-title" tabIndex={0}>
          <ol class="ops-log-lines" id="log-lines">
            {lines.map((l) => (
              <li key={l.key} class={`ops-log-line ops-level-${l.record.level ?? 'info'}`} data-request-id={l.record.request_id ?? ''}>
                <time dateTime={l.record.time}>{l.record.time ? new Date(l.record.time).toLocaleTimeString() : ''}</time> <span class="ops-log-level">{l.record.level}</span> <span class="ops-log-service">{l.record.service}</span>{' '}
                <span class="ops-log-msg">{l.record.msg}</span> {l.record.request_id ? <span class="ops-log-req">request {l.record.request_id}</span> : null} <span class="ops-log-extra">{extra(l.record)}</span>
              </li>
            ))}
          </ol>
        </div>
      </section>
    </>
  );
}

/** Sets the draft and answers it (a select applies at once, without the typing delay). */
function setDraftNow(setDraft: (f: Filters) => void, f: Filters): Filters {
  setDraft(f);
  return f;
}
