/**
 * /ops/usage: usage and cost over a day range (GET /api/usage/summary and
 * /api/usage/cost-dashboard): totals, a chart of the daily requests and characters, and tables
 * per tier and per key (requests, characters, audio, cost, quota stage).
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { messageFor } from '../../lib/messages.js';
import { Chart } from './chart.js';
import { count, decimal } from './format.js';
import { words } from '../../lib/format.js';
import { ErrorLine, OpsFrame } from './ops-frame.js';
import { costDashboard, usageSummary, type CostDashboard, type UsageSummary } from './ops-api.js';
import { Fact } from '../../components/fact.js';

const DAY_MS = 86_400_000;
/** A UTC day as YYYY-MM-DD. */
const dayOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** Daily totals of the usage rows, one entry per day of the range (0 for a day without use). */
function dailyTotals(summary: UsageSummary, from: string, to: string): { days: string[]; requests: number[]; characters: number[] } {
  const byDay = new Map<string, { requests: number; characters: number }>();
  for (const r of summary.rows) {
    const t = byDay.get(r.day) ?? { requests: 0, characters: 0 };
    byDay.set(r.day, { requests: t.requests + r.requests, characters: t.characters + r.characters });
  }
  const days: string[] = [];
  for (let ms = Date.parse(`${from}T00:00:00Z`); ms <= Date.parse(`${to}T00:00:00Z`) && days.length < 400; ms += DAY_MS) days.push(dayOf(ms));
  return { days, requests: days.map((d) => byDay.get(d)?.requests ?? 0), characters: days.map((d) => byDay.get(d)?.characters ?? 0) };
}

/** Usage per key over the range, from the summary's rows (day x key x endpoint). */
function perKey(summary: UsageSummary): { key: string; requests: number; failed: number; characters: number; audioSeconds: number }[] {
  const byKey = new Map<string, { key: string; requests: number; failed: number; characters: number; audioSeconds: number }>();
  for (const r of summary.rows) {
    const key = r.key_id ?? 'web (no key)';
    const t = byKey.get(key) ?? { key, requests: 0, failed: 0, characters: 0, audioSeconds: 0 };
    byKey.set(key, { key, requests: t.requests + r.requests, failed: t.failed + (r.failed_requests ?? 0), characters: t.characters + r.characters, audioSeconds: t.audioSeconds + r.audio_seconds });
  }
  return [...byKey.values()].sort((a, b) => b.requests - a.requests);
}

/** The usage and cost page. */
export function UsagePage() {
  return (
    <OpsFrame title="Usage and cost" intro="Requests, characters, audio and cost per API key and per tier over a range of UTC days.">
      <UsageContent />
    </OpsFrame>
  );
}

function UsageContent() {
  const today = dayOf(Date.now());
  const [from, setFrom] = useState(dayOf(Date.now() - 6 * DAY_MS));
  const [to, setTo] = useState(today);
  const [range, setRange] = useState({ from, to });
  const [data, setData] = useState<{ summary: UsageSummary; cost: CostDashboard } | null>(null);
  const [error, setError] = useState('');
  const [status, setStatus] = useState('Loading…');

  useEffect(() => {
    const abort = new AbortController();
    setStatus('Loading…');
    Promise.all([usageSummary(range.from, range.to, abort.signal), costDashboard(range.from, range.to, abort.signal)]).then(
      ([summary, cost]) => {
        setData({ summary, cost });
        setError('');
        setStatus(`Usage from ${range.from} to ${range.to}: ${count(summary.totals.requests ?? 0)} requests.`);
      },
      (err: unknown) => {
        if (abort.signal.aborted) return;
        setError(messageFor(err));
        setStatus('');
      },
    );
    return () => abort.abort();
  }, [range]);

  const valid = DAY.test(from) && DAY.test(to) && from <= to;
  const daily = useMemo(() => (data ? dailyTotals(data.summary, range.from, range.to) : null), [data, range]);
  const xs = useMemo(() => daily?.days.map((d) => Date.parse(`${d}T12:00:00Z`) / 1000) ?? [], [daily]);
  const chartSeries = useMemo(() => (daily ? [{ label: 'Requests', color: '--accent' as const, values: daily.requests }] : []), [daily]);
  const keys = data ? perKey(data.summary) : [];
  const cost = data?.cost;

  return (
    <>
      <form
        class="card"
        aria-labelledby="usage-range"
        onSubmit={(e) => {
          e.preventDefault();
          if (valid) setRange({ from, to });
        }}
      >
        <h2 id="usage-range">Days</h2>
        <div class="row ops-toolbar">
          <div class="field">
            <label for="usage-from">From (UTC day)</label>
            <input id="usage-from" type="date" value={from} max={today} onInput={(e) => setFrom(e.currentTarget.value)} />
          </div>
          <div class="field">
            <label for="usage-to">To (UTC day, included)</label>
            <input id="usage-to" type="date" value={to} max={today} onInput={(e) => setTo(e.currentTarget.value)} />
          </div>
          <div class="actions">
            <button type="submit" disabled={!valid}>
              Show
            </button>
          </div>
        </div>
        {!valid && <p class="warn">The first day must not be after the last.</p>}
        <p role="status" class="hint">
          {status}
        </p>
        <ErrorLine message={error} />
      </form>
      {data && cost && daily && (
        <>
          <section class="card" aria-labelledby="usage-totals">
            <h2 id="usage-totals">Totals</h2>
            <dl class="ops-facts">
              <div>
                <dt>Requests</dt>
                <dd>
                  {count(data.summary.totals.requests)} ({count(data.summary.totals.failed_requests)} failed)
                </dd>
              </div>
              <Fact term="Characters">{count(data.summary.totals.characters)}</Fact>
              <Fact term="Audio">{decimal(data.summary.totals.audio_seconds, 1)} s</Fact>
              <Fact term="Cost">{decimal(cost.totals.cost_usd, 4)} USD</Fact>
            </dl>
          </section>
          <section class="card ops-chart-card" aria-labelledby="usage-daily">
            <h2 id="usage-daily">Requests per day</h2>
            <Chart label={`Requests per UTC day from ${range.from} to ${range.to}; a table for screen readers lists them.`} xs={xs} series={chartSeries} xLabel="Day (UTC)" yLabel="Requests" bars format={(v) => count(v)} />
            <div class="ops-sr">
              <table>
                <caption>Requests and characters per UTC day</caption>
                <thead>
                  <tr>
                    <th scope="col">Day</th>
                    <th scope="col">Requests</th>
                    <th scope="col">Characters</th>
                  </tr>
                </thead>
                <tbody>
                  {daily.days.map((d, i) => (
                    <tr key={d}>
                      <th scope="row">{d}</th>
                      <td>{count(daily.requests[i])}</td>
                      <td>{count(daily.characters[i])}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </section>
          <section class="card" aria-labelledby="usage-tiers">
            <h2 id="usage-tiers">Per tier</h2>
            <div class="table-wrap" role="region" aria-label="Per tier table" tabIndex={0}>
              <table class="ops-table">
                <thead>
                  <tr>
                    <th scope="col">Tier</th>
                    <th scope="col">Requests</th>
                    <th scope="col">Characters</th>
                    <th scope="col">Audio minutes</th>
                    <th scope="col">Cost (USD)</th>
                  </tr>
                </thead>
                <tbody>
                  {cost.by_tier.map((t) => (
                    <tr key={t.tier ?? 'none'}>
                      <th scope="row">{t.tier ?? 'no tier'}</th>
                      <td>{count(t.requests)}</td>
                      <td>{count(t.characters)}</td>
                      <td>{decimal(t.audio_minutes, 2)}</td>
                      <td>{decimal(t.cost_usd, 4)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </section>
          <section class="card" aria-labelledby="usage-keys">
            <h2 id="usage-keys">Per API key</h2>
            <div class="table-wrap" role="region" aria-label="Per API key table" tabIndex={0}>
              <table class="ops-table" id="usage-key-table">
                <thead>
                  <tr>
                    <th scope="col">Key</th>
                    <th scope="col">Tier</th>
                    <th scope="col">Requests</th>
                    <th scope="col">Characters</th>
                    <th scope="col">Audio (s)</th>
                    <th scope="col">Cost (USD)</th>
                    <th scope="col">Quota</th>
                  </tr>
                </thead>
                <tbody>
                  {keys.map((k) => {
                    const c = cost.rows.find((r) => r.key_id === k.key);
                    return (
                      <tr key={k.key} data-key-id={k.key}>
                        <th scope="row" class="ops-mono">
                          {c?.key_name ? `${c.key_name} (${k.key})` : k.key}
                        </th>
                        <td>{c?.tier ?? '—'}</td>
                        <td>
                          {count(k.requests)}
                          {k.failed > 0 ? ` (${count(k.failed)} failed)` : ''}
                        </td>
                        <td>{count(k.characters)}</td>
                        <td>{decimal(k.audioSeconds, 1)}</td>
                        <td>{c ? decimal(c.cost_usd, 4) : '—'}</td>
                        <td>{c?.quota_stage ? words(c.quota_stage) : '—'}</td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </div>
            {keys.length === 0 && <p class="hint">No use in these days.</p>}
          </section>
        </>
      )}
    </>
  );
}
