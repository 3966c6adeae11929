/**
 * /ops: the service level objectives. For the chosen scope (every endpoint or one) and window:
 * each objective (availability, latency) with its target, current value, error budget left and
 * burn rate; the burn rates over the alerting windows (5 minutes to 3 days); the alerts firing
 * (and resolved) from GET /api/slo/alerts; and charts over time of the dashboard's `series`
 * (availability, p95 latency, burn rates), each with a table of its values for screen readers.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { messageFor } from '../../lib/messages.js';
import { Chart, type ChartSeries } from './chart.js';
import { burn, count, millis, percent, windowName } from './format.js';
import { when } from '../../lib/format.js';
import { ErrorLine, OpsFrame } from './ops-frame.js';
import { sloAlerts, sloDashboard, type SloAlerts, type SloDashboard, type SloSeriesPoint } from './ops-api.js';

/** Windows the charts can cover, minutes. */
const CHART_WINDOWS = [60, 360, 1440, 10_080] as const;
/** Windows of the multi-window burn rates (the alert rules' short and long windows). */
const BURN_WINDOWS = [5, 60, 360, 1440, 4320] as const;

interface Loaded {
  readonly main: SloDashboard;
  readonly windows: readonly SloDashboard[];
  readonly alerts: SloAlerts;
  readonly at: string;
}

/** A chart of one or more series of the dashboard's buckets and its text alternative. */
function SeriesChart(props: {
  id: string;
  title: string;
  yLabel: string;
  points: readonly SloSeriesPoint[];
  bucketMinutes: number;
  lines: readonly { label: string; color: ChartSeries['color']; value: (p: SloSeriesPoint) => number | null }[];
  format: (v: number) => string;
  yRange?: readonly [number, number];
}) {
  const { points, lines } = props;
  const xs = useMemo(() => points.map((p) => Date.parse(p.to) / 1000), [points]);
  const series = useMemo(() => lines.map((l) => ({ label: l.label, color: l.color, values: points.map(l.value) })), [points, lines]);
  const withData = points.filter((p) => lines.some((l) => l.value(p) !== null));
  const latest = withData.at(-1);
  const summary =
    latest === undefined
      ? 'No requests in the window.'
      : `Latest bucket with requests, ending ${when(latest.to)}: ${lines.map((l) => `${l.label} ${fmt(props.format, l.value(latest))}`).join(', ')}.`;
  return (
    <section class="card ops-chart-card" aria-labelledby={`${props.id}-title`}>
      <h2 id={`${props.id}-title`}>{props.title}</h2>
      <Chart label={`${props.title}, per ${windowName(props.bucketMinutes)} bucket. ${summary}`} xs={xs} series={series} xLabel="Time" yLabel={props.yLabel} format={props.format} yRange={props.yRange} />
      <p class="hint">{summary}</p>
      <div class="ops-sr">
        <table id={`${props.id}-values`}>
          <caption>
            {props.title}: values of each {windowName(props.bucketMinutes)} bucket with requests
          </caption>
          <thead>
            <tr>
              <th scope="col">Bucket end</th>
              {lines.map((l) => (
                <th key={l.label} scope="col">
                  {l.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {withData.map((p) => (
              <tr key={p.to}>
                <th scope="row">
                  <time dateTime={p.to}>{when(p.to)}</time>
                </th>
                {lines.map((l) => (
                  <td key={l.label}>{fmt(props.format, l.value(p))}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

const fmt = (format: (v: number) => string, v: number | null): string => (v === null ? '—' : format(v));

const AVAILABILITY_LINES = [{ label: 'Availability', color: '--accent', value: (p: SloSeriesPoint) => p.availability }] as const;
const LATENCY_LINES = [{ label: 'p95 latency', color: '--accent', value: (p: SloSeriesPoint) => p.p95_ms }] as const;
const BURN_LINES = [
  { label: 'Availability burn rate', color: '--danger', value: (p: SloSeriesPoint) => p.burn_rate },
  { label: 'Latency burn rate', color: '--accent', value: (p: SloSeriesPoint) => p.latency.burn_rate },
] as const;

function Objectives(props: { d: SloDashboard }) {
  const o = props.d.overall;
  return (
    <section class="card" aria-labelledby="slo-objectives">
      <h2 id="slo-objectives">Objectives over the last {windowName(props.d.window_minutes)}</h2>
      <div class="table-wrap" role="region" aria-label="Objectives table" tabIndex={0}>
        <table class="ops-table">
          <thead>
            <tr>
              <th scope="col">Objective</th>
              <th scope="col">Target</th>
              <th scope="col">Current</th>
              <th scope="col">Error budget left</th>
              <th scope="col">Burn rate</th>
            </tr>
          </thead>
          <tbody>
            <tr>
              <th scope="row">Availability</th>
              <td>{percent(o.objective.availability, 3)} of requests succeed</td>
              <td>
                {percent(o.availability, 3)} ({count(o.errors)} failed of {count(o.requests)})
              </td>
              <td class={o.error_budget_remaining < 0 ? 'error' : ''}>{percent(o.error_budget_remaining, 1)}</td>
              <td>{burn(o.burn_rate)}</td>
            </tr>
            <tr>
              <th scope="row">Latency</th>
              <td>95 % of requests within {millis(o.objective.latency_p95_ms)}</td>
              <td>
                p95 {millis(o.p95_ms)}; {percent(o.latency.within_threshold, 2)} within ({count(o.latency.slow)} slow of {count(o.latency.served)})
              </td>
              <td class={o.latency.error_budget_remaining < 0 ? 'error' : ''}>{percent(o.latency.error_budget_remaining, 1)}</td>
              <td>{burn(o.latency.burn_rate)}</td>
            </tr>
          </tbody>
        </table>
      </div>
      <p class="hint">Burn rate 1 spends the error budget exactly at the sustainable pace; the budget left is 1 − burn rate over this window.</p>
    </section>
  );
}

function BurnWindows(props: { windows: readonly SloDashboard[] }) {
  return (
    <section class="card" aria-labelledby="slo-windows">
      <h2 id="slo-windows">Burn rate by window</h2>
      <div class="table-wrap" role="region" aria-label="Burn rate by window table" tabIndex={0}>
        <table class="ops-table" id="slo-burn-windows">
          <thead>
            <tr>
              <th scope="col">Window</th>
              <th scope="col">Requests</th>
              <th scope="col">Availability burn rate</th>
              <th scope="col">Latency burn rate</th>
            </tr>
          </thead>
          <tbody>
            {props.windows.map((d) => (
              <tr key={d.window_minutes}>
                <th scope="row">{windowName(d.window_minutes)}</th>
                <td>{count(d.overall.requests)}</td>
                <td>{burn(d.overall.burn_rate)}</td>
                <td>{burn(d.overall.latency.burn_rate)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p class="hint">Pages fire at 14.4× over 1 hour and 5 minutes or 6× over 6 hours and 30 minutes; tickets at 3× over a day and 2 hours or 1× over 3 days and 6 hours.</p>
    </section>
  );
}

function Alerts(props: { alerts: SloAlerts }) {
  const firing = props.alerts.alerts.filter((a) => a.state === 'firing');
  const resolved = props.alerts.alerts.length - firing.length;
  return (
    <section class="card" aria-labelledby="slo-alerts">
      <h2 id="slo-alerts">Alerts</h2>
      {firing.length === 0 ? (
        <p class="ok">No alert is firing.</p>
      ) : (
        <ul class="ops-list" id="slo-firing">
          {firing.map((a) => (
            <li key={a.name} class="ops-item">
              <span class={`badge ops-${a.severity}`}>{a.severity}</span> <strong>{a.sli}</strong> {a.rule} on {a.endpoint ?? 'every endpoint'}: burning {burn(a.burn_rates.long)} over {windowName(a.windows.long_minutes)} and {burn(a.burn_rates.short)} over {windowName(a.windows.short_minutes)} (threshold {burn(a.burn_rate_threshold)}), since {when(a.since)}
            </li>
          ))}
        </ul>
      )}
      <p class="hint">
        {count(resolved)} resolved in the last {windowName(CHART_WINDOWS[0])}. An alert needs at least {count(props.alerts.min_requests)} requests in its long window.
      </p>
    </section>
  );
}

/** The SLO page. */
export function SloPage() {
  return (
    <OpsFrame title="Service level objectives" intro="Availability and latency against their objectives, from every facade replica's recorded requests.">
      <SloContent />
    </OpsFrame>
  );
}

function SloContent() {
  const [windowMinutes, setWindowMinutes] = useState<number>(CHART_WINDOWS[0]);
  const [endpoint, setEndpoint] = useState('');
  const [endpoints, setEndpoints] = useState<readonly string[]>([]);
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  const [error, setError] = useState('');
  const [status, setStatus] = useState('Loading…');
  const [reload, setReload] = useState(0);

  useEffect(() => {
    const abort = new AbortController();
    setStatus('Loading…');
    Promise.all([
      sloDashboard(windowMinutes, endpoint, endpoint === '', abort.signal),
      Promise.all(BURN_WINDOWS.map((w) => sloDashboard(w, endpoint, false, abort.signal))),
      sloAlerts(CHART_WINDOWS[0], endpoint, abort.signal),
    ]).then(
      ([main, windows, alerts]) => {
        setLoaded({ main, windows, alerts, at: new Date().toISOString() });
        if (endpoint === '') setEndpoints(main.endpoints.map((e) => e.endpoint ?? '').filter((e) => e !== ''));
        setError('');
        setStatus(`Updated at ${new Date().toLocaleTimeString()}: ${count(main.overall.requests)} requests in the window, ${count(alerts.firing)} alerts firing.`);
      },
      (err: unknown) => {
        if (abort.signal.aborted) return;
        setError(messageFor(err));
        setStatus('');
      },
    );
    return () => abort.abort();
  }, [windowMinutes, endpoint, reload]);

  const d = loaded?.main;
  return (
    <>
      <section class="card" aria-labelledby="slo-scope">
        <h2 id="slo-scope">Scope</h2>
        <div class="row ops-toolbar">
          <div class="field">
            <label for="slo-window">Chart window</label>
            <select id="slo-window" value={String(windowMinutes)} onChange={(e) => setWindowMinutes(Number(e.currentTarget.value))}>
              {CHART_WINDOWS.map((w) => (
                <option key={w} value={String(w)}>
                  Last {windowName(w)}
                </option>
              ))}
            </select>
          </div>
          <div class="field">
            <label for="slo-endpoint">Endpoint</label>
            <select id="slo-endpoint" value={endpoint} onChange={(e) => setEndpoint(e.currentTarget.value)}>
              <option value="">Every endpoint</option>
              {[...new Set([...endpoints, ...(endpoint ? [endpoint] : [])])].map((e) => (
                <option key={e} value={e}>
                  {e}
                </option>
              ))}
            </select>
          </div>
          <div class="actions">
            <button type="button" class="secondary" onClick={() => setReload((n) => n + 1)}>
              Refresh
            </button>
          </div>
        </div>
        <p role="status" class="hint" id="slo-status">
          {status}
        </p>
        <ErrorLine message={error} />
      </section>
      {d && loaded && (
        <>
          <Objectives d={d} />
          <BurnWindows windows={loaded.windows} />
          <Alerts alerts={loaded.alerts} />
          <SeriesChart id="chart-availability" title="Availability" yLabel="Share of requests" points={d.series.points} bucketMinutes={d.series.bucket_minutes} lines={AVAILABILITY_LINES} format={(v) => percent(v, 2)} yRange={[0, 1]} />
          <SeriesChart id="chart-latency" title="p95 latency" yLabel="Milliseconds" points={d.series.points} bucketMinutes={d.series.bucket_minutes} lines={LATENCY_LINES} format={millis} />
          <SeriesChart id="chart-burn" title="Burn rate" yLabel="Burn rate (×)" points={d.series.points} bucketMinutes={d.series.bucket_minutes} lines={BURN_LINES} format={burn} />
        </>
      )}
    </>
  );
}
