/**
 * The SLO engine against known traffic: fast and slow syntheses and client errors on one facade,
 * injected server failures on a second facade replica (same database, no scheduler behind it).
 * The dashboard's counts, availability and percentiles are checked against the traffic and the
 * stored SLIs, from both replicas and after a restart; the multi-window burn-rate alerts fire and
 * clear as the SLO clock moves on, and the minimum-traffic guard holds low traffic back. The
 * dashboard's series puts known good and failed requests in their time buckets.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { TEST_DATABASE_URL, TEST_REDIS_URL } from '@tts/common/testing';
import { start as startFacade, type RunningFacade } from '@tts/facade';
import type { SloObjectives } from '@tts/facade/testing';
import { postJson, startPlatform, type TestPlatform } from './support/platform.js';

const ENDPOINT = 'POST /api/tts';
/** A synthesis slower than this (ms) is a bad event of the latency SLO. */
const THRESHOLD_MS = 400;
const OBJECTIVES: SloObjectives = {
  default: { availability: 0.999, latencyP95Ms: 1000 },
  endpoints: { [ENDPOINT]: { availability: 0.999, latencyP95Ms: THRESHOLD_MS } },
  minRequests: 10,
};
const SLOW_TEXT = 'The quick brown fox jumps over the lazy dog near the quiet river bank. '.repeat(10);

interface Figures {
  endpoint: string | null;
  requests: number;
  errors: number;
  availability: number | null;
  p50_ms: number | null;
  p95_ms: number | null;
  p99_ms: number | null;
  error_budget_remaining: number;
  burn_rate: number;
  latency: { slow: number; served: number; within_threshold: number | null; burn_rate: number };
}
interface SeriesPoint {
  from: string;
  to: string;
  requests: number;
  errors: number;
  availability: number | null;
  burn_rate: number | null;
  p95_ms: number | null;
  latency: { served: number; slow: number; within_threshold: number | null; burn_rate: number | null };
}
interface Dashboard {
  window_minutes: number;
  to: string;
  overall: Figures;
  endpoints: Figures[];
  series: { bucket_minutes: number; points: SeriesPoint[] };
}
interface Alert {
  name: string;
  sli: 'availability' | 'latency';
  rule: string;
  severity: 'page' | 'ticket';
  endpoint: string | null;
  state: 'firing' | 'resolved';
  since: string;
  until: string | null;
  windows: { long_minutes: number; short_minutes: number };
  burn_rate_threshold: number;
  burn_rates: { long: number; short: number };
  events: { long: number; short: number };
  bad_events: { long: number; short: number };
}
interface Alerts {
  firing: number;
  min_requests: number;
  alerts: Alert[];
}

/** PostgreSQL's percentile_cont: linear interpolation between the closest ranks. */
function percentileCont(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = p * (sorted.length - 1);
  const lo = Math.floor(rank);
  const hi = Math.ceil(rank);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (rank - lo);
}

describe('SLO engine', { timeout: 60_000 }, () => {
  let p: TestPlatform;
  let replica: RunningFacade;
  let offsetMs = 0;
  /** A stopped SLO clock (ms since the epoch), or null for the running one. */
  let frozenAt: number | null = null;
  const clock = (): Date => new Date(frozenAt ?? Date.now() + offsetMs);
  const fastClient: number[] = [];
  const slowClient: number[] = [];

  const admin = { 'x-admin-key': '' };
  const getJson = async <T>(url: string): Promise<T> => {
    const res = await fetch(url, { headers: admin });
    assert.equal(res.status, 200, await res.clone().text());
    return (await res.json()) as T;
  };
  const dashboard = (base: string, query: string): Promise<Dashboard> => getJson<Dashboard>(`${base}/api/slo/dashboard?${query}`);
  const alerts = (query: string): Promise<Alerts> => getJson<Alerts>(`${p.url}/api/slo/alerts?${query}`);
  const drain = async (): Promise<void> => {
    await p.facade.deps.slo.drain();
    await replica.deps.slo.drain();
  };
  const synthesize = async (text: string, into: number[]): Promise<void> => {
    const t = performance.now();
    const res = await p.post('/api/tts', { text, voice: 'flite:slt' });
    await res.arrayBuffer();
    into.push(performance.now() - t);
    assert.equal(res.status, 200);
  };
  /** A request to the replica, whose scheduler does not exist: 503. */
  const failOnReplica = async (): Promise<void> => {
    const res = await postJson(`${replica.url}/api/tts`, { text: 'Nobody will say this.', voice: 'flite:slt' }, { 'x-api-key': p.apiKey });
    assert.equal(res.status, 503);
    assert.equal(((await res.json()) as { code: string }).code, 'TTS_NO_NODE_AVAILABLE');
  };

  before(async () => {
    p = await startPlatform({
      // One sentence at a time: SLOW_TEXT must take longer than THRESHOLD_MS, which it may not when
      // the node renders two sentences at once.
      node: { engines: ['flite'], defaultVoice: 'flite:slt', sentencesInFlight: 1 },
      facade: { defaultVoice: 'flite:slt', sloObjectives: OBJECTIVES, cleanupIntervalMinutes: 0 },
    });
    admin['x-admin-key'] = p.adminKey;
    replica = await startFacade({
      host: '127.0.0.1',
      port: 0,
      schedulerAddress: '127.0.0.1:9',
      validateResponses: true,
      databaseUrl: TEST_DATABASE_URL,
      dbSchema: p.facade.deps.access.database.schema,
      redisUrl: TEST_REDIS_URL,
      kvPrefix: p.facade.deps.config.kvPrefix,
      adminKey: p.adminKey,
      defaultVoice: 'flite:slt',
      sloObjectives: OBJECTIVES,
      cleanupIntervalMinutes: 0,
      synthRetries: 0,
    });
    p.facade.deps.slo.clock = clock;
    replica.deps.slo.clock = clock;
    // Warm the engine up with the SLO clock a week back (outside every window), then bring it to now.
    offsetMs = -8 * 24 * 60 * 60_000;
    await synthesize('Warming up.', []);
    offsetMs = 0;

    // The known traffic, all within one minute of the SLO clock.
    for (let i = 0; i < 16; i++) await synthesize(i % 2 === 0 ? 'Hi.' : 'Hello there.', fastClient);
    for (let i = 0; i < 4; i++) await synthesize(SLOW_TEXT, slowClient);
    for (const body of [{ text: '' }, { text: 'x', speed: 9 }]) {
      const res = await p.post('/api/tts', body);
      assert.equal(res.status, 422);
      await res.arrayBuffer();
    }
    for (let i = 0; i < 5; i++) await failOnReplica();
    await drain();
  });

  after(async () => {
    await replica.stop(1000);
    await p.stop();
  });

  test('dashboard: counts, availability and percentiles of the known traffic, from both replicas', async () => {
    const q = `endpoint=${encodeURIComponent(ENDPOINT)}&window_minutes=5`;
    const d = await dashboard(p.url, q);
    const f = d.overall;
    assert.equal(f.endpoint, ENDPOINT);
    assert.equal(f.requests, 27, '20 syntheses + 2 refused bodies + 5 failures');
    assert.equal(f.errors, 5, 'only the 503s count; the 422s do not');
    assert.equal(f.availability, 22 / 27);
    assert.ok(Math.abs(f.burn_rate - 5 / 27 / 0.001) < 1e-6);
    assert.ok(Math.abs(f.error_budget_remaining - (1 - 5 / 27 / 0.001)) < 1e-6);
    assert.equal(f.latency.served, 22);

    // Percentiles are those of the stored SLIs of the served requests...
    const rows = await p.facade.deps.access.database.query<{ latency_ms: number }>(
      'SELECT latency_ms FROM slo_requests WHERE endpoint = $1 AND ok AND at > $2',
      [ENDPOINT, new Date(clock().getTime() - 5 * 60_000)],
    );
    const latencies = rows.map((r) => Number(r.latency_ms));
    assert.equal(latencies.length, 22);
    for (const [key, q2] of [['p50_ms', 0.5], ['p95_ms', 0.95], ['p99_ms', 0.99]] as const) {
      assert.ok(Math.abs(f[key]! - percentileCont(latencies, q2)) < 0.002, `${key} ${f[key]} vs ${percentileCont(latencies, q2)}`);
    }
    // ...and they describe the traffic: the median is a fast request, p95 and p99 the slow ones.
    const fastest = Math.max(...fastClient);
    const slowest = Math.min(...slowClient);
    assert.ok(slowest > THRESHOLD_MS && fastest < THRESHOLD_MS, `traffic as designed: fast <= ${fastest} ms, slow >= ${slowest} ms`);
    assert.ok(f.p50_ms! <= fastest, `p50 ${f.p50_ms} is a fast request`);
    assert.ok(f.p95_ms! > THRESHOLD_MS && f.p99_ms! >= f.p95_ms!, `p95 ${f.p95_ms}, p99 ${f.p99_ms} are slow requests`);
    assert.equal(f.latency.slow, latencies.filter((l) => l > THRESHOLD_MS).length);
    assert.equal(f.latency.slow, 4);
    assert.ok(Math.abs(f.latency.burn_rate - 4 / 22 / 0.05) < 1e-9);

    // The other replica reads the same figures.
    const other = await dashboard(replica.url, q);
    assert.deepEqual(other.overall, f);

    // Without a filter the endpoint appears among the others, with the same figures.
    const all = await dashboard(p.url, 'window_minutes=5');
    assert.deepEqual(all.endpoints.find((e) => e.endpoint === ENDPOINT), f);
    assert.equal(all.overall.endpoint, null);
    assert.ok(all.overall.requests >= 27);
    const none = await dashboard(p.url, 'window_minutes=5&include_endpoints=false');
    assert.deepEqual(none.endpoints, []);
    // An endpoint without traffic has no figures.
    assert.equal((await dashboard(p.url, `endpoint=${encodeURIComponent('DELETE /nowhere')}`)).overall.requests, 0);
  });

  test('dashboard figures survive a facade restart', async () => {
    const q = `endpoint=${encodeURIComponent(ENDPOINT)}&window_minutes=5`;
    const beforeRestart = (await dashboard(p.url, q)).overall;
    const restarted = await startFacade({
      host: '127.0.0.1',
      port: 0,
      schedulerAddress: p.scheduler.address,
      validateResponses: true,
      databaseUrl: TEST_DATABASE_URL,
      dbSchema: p.facade.deps.access.database.schema,
      redisUrl: TEST_REDIS_URL,
      kvPrefix: p.facade.deps.config.kvPrefix,
      adminKey: p.adminKey,
      sloObjectives: OBJECTIVES,
      cleanupIntervalMinutes: 0,
    });
    try {
      restarted.deps.slo.clock = clock;
      const afterRestart = (await dashboard(restarted.url, q)).overall;
      assert.deepEqual(afterRestart, beforeRestart);
    } finally {
      await restarted.stop(1000);
    }
  });

  test('alerts: the right rules fire for the traffic and clear window by window', async () => {
    const q = `endpoint=${encodeURIComponent(ENDPOINT)}&window_minutes=600`;
    const firing = (a: Alerts): string[] => a.alerts.filter((x) => x.state === 'firing').map((x) => `${x.sli}:${x.rule}`).sort();
    const resolved = (a: Alerts): string[] => a.alerts.filter((x) => x.state === 'resolved').map((x) => `${x.sli}:${x.rule}`).sort();

    const now = await alerts(q);
    assert.equal(now.min_requests, 10);
    // Availability burns at 185x: every rule. Latency burns at 3.6x (4 of 22 slow, 5 % allowed): tickets only.
    assert.deepEqual(firing(now), [
      'availability:page-1h-5m', 'availability:page-6h-30m', 'availability:ticket-1d-2h', 'availability:ticket-3d-6h',
      'latency:ticket-1d-2h', 'latency:ticket-3d-6h',
    ]);
    const page = now.alerts.find((a) => a.name === `availability:page-1h-5m:${ENDPOINT}`)!;
    assert.equal(page.severity, 'page');
    assert.deepEqual(page.windows, { long_minutes: 60, short_minutes: 5 });
    assert.equal(page.burn_rate_threshold, 14.4);
    assert.ok(Math.abs(page.burn_rates.long - 5 / 27 / 0.001) < 1e-6 && Math.abs(page.burn_rates.short - 5 / 27 / 0.001) < 1e-6);
    assert.deepEqual([page.events, page.bad_events], [{ long: 27, short: 27 }, { long: 5, short: 5 }]);
    assert.equal(page.until, null);
    assert.ok(Math.abs(Date.parse(page.since) - clock().getTime()) <= 60_000, 'since: when it started');
    const ticket = now.alerts.find((a) => a.name === `latency:ticket-1d-2h:${ENDPOINT}`)!;
    assert.equal(ticket.severity, 'ticket');
    assert.ok(Math.abs(ticket.burn_rates.long - 4 / 22 / 0.05) < 1e-9);
    // The overall scope fires too (no endpoint filter).
    const overall = await alerts('window_minutes=60');
    assert.ok(overall.alerts.some((a) => a.endpoint === null && a.name === 'availability:page-1h-5m:*' && a.state === 'firing'));

    // 6 minutes later the 5-minute window is clean: the fast page clears, the slow page still fires.
    offsetMs += 6 * 60_000;
    let later = await alerts(q);
    assert.deepEqual(resolved(later), ['availability:page-1h-5m']);
    assert.ok(firing(later).includes('availability:page-6h-30m'));
    const cleared = later.alerts.find((a) => a.name === `availability:page-1h-5m:${ENDPOINT}`)!;
    // Instants are evaluated a minute apart, counted back from each query's now.
    assert.ok(Math.abs(Date.parse(cleared.since) - Date.parse(page.since)) <= 60_000);
    assert.ok(cleared.until !== null && Date.parse(cleared.until) > Date.parse(cleared.since));

    offsetMs += 25 * 60_000; // 31 minutes after: the 30-minute window is clean too.
    later = await alerts(q);
    assert.deepEqual(firing(later), ['availability:ticket-1d-2h', 'availability:ticket-3d-6h', 'latency:ticket-1d-2h', 'latency:ticket-3d-6h']);

    offsetMs += 90 * 60_000; // 2 h 1 min after: the 2-hour window is clean.
    later = await alerts(q);
    assert.deepEqual(firing(later), ['availability:ticket-3d-6h', 'latency:ticket-3d-6h']);

    offsetMs += 240 * 60_000; // 6 h 1 min after: every short window is clean.
    later = await alerts(q);
    assert.equal(later.firing, 0);
    assert.deepEqual(resolved(later), [
      'availability:page-1h-5m', 'availability:page-6h-30m', 'availability:ticket-1d-2h', 'availability:ticket-3d-6h',
      'latency:ticket-1d-2h', 'latency:ticket-3d-6h',
    ]);
    // Resolved alerts older than the window are not listed.
    assert.deepEqual((await alerts(`endpoint=${encodeURIComponent(ENDPOINT)}&window_minutes=5`)).alerts.map((a) => a.rule), ['ticket-3d-6h', 'ticket-3d-6h']);
  });

  test('alerts: the minimum-traffic guard holds back a rule until the long window has enough requests', async () => {
    offsetMs += 4 * 24 * 60 * 60_000; // past every window of the earlier traffic
    const q = `endpoint=${encodeURIComponent(ENDPOINT)}&window_minutes=5`;
    assert.equal((await alerts(q)).alerts.length, 0);
    for (let i = 0; i < 9; i++) await failOnReplica();
    await drain();
    assert.equal((await alerts(q)).firing, 0, '9 failed requests of 9: below min_requests');
    await failOnReplica();
    await drain();
    const a = await alerts(q);
    assert.ok(a.alerts.some((x) => x.name === `availability:page-1h-5m:${ENDPOINT}` && x.state === 'firing'), '10 requests: the page fires');
  });

  test('dashboard series: known good and bad requests land in their buckets, empty buckets are null', async () => {
    // A stopped SLO clock, past every window of the earlier traffic: 6 good syntheses (2 slow) at
    // T, then 3 good and 2 failed 3 minutes later; the dashboard is read 30 s after that.
    const t = Date.now() + offsetMs + 30 * 24 * 60 * 60_000;
    frozenAt = t;
    for (let i = 0; i < 4; i++) await synthesize('Hi.', []);
    for (let i = 0; i < 2; i++) await synthesize(SLOW_TEXT, []);
    frozenAt = t + 3 * 60_000;
    for (let i = 0; i < 3; i++) await synthesize('Hello there.', []);
    for (let i = 0; i < 2; i++) await failOnReplica();
    await drain();
    frozenAt = t + 3 * 60_000 + 30_000;
    try {
      const d = await dashboard(p.url, `endpoint=${encodeURIComponent(ENDPOINT)}&window_minutes=10`);
      assert.equal(d.series.bucket_minutes, 1, 'one-minute buckets over 10 minutes');
      const points = d.series.points;
      assert.equal(points.length, 10);
      assert.equal(points.at(-1)!.to, d.to, 'the last bucket ends at the end of the window');
      for (const [i, point] of points.entries()) {
        assert.equal(Date.parse(point.to) - Date.parse(point.from), 60_000);
        if (i > 0) assert.equal(point.from, points[i - 1]!.to, 'buckets follow each other');
      }
      // Bucket 9 (the last) holds the later traffic, bucket 6 (3 minutes before) the first.
      const late = points[9]!;
      const early = points[6]!;
      assert.deepEqual([late.requests, late.errors, late.availability], [5, 2, 3 / 5]);
      assert.ok(Math.abs(late.burn_rate! - 2 / 5 / (1 - 0.999)) < 1e-6, 'burn rate = error rate / (1 - objective)');
      assert.deepEqual([early.requests, early.errors, early.availability, early.burn_rate], [6, 0, 1, 0]);
      assert.deepEqual([early.latency.served, early.latency.slow], [6, 2]);
      assert.ok(Math.abs(early.latency.burn_rate! - 2 / 6 / 0.05) < 1e-9);
      for (const [i, point] of points.entries()) {
        if (i === 6 || i === 9) continue;
        assert.deepEqual(point, { ...point, requests: 0, errors: 0, availability: null, burn_rate: null, p95_ms: null, latency: { served: 0, slow: 0, within_threshold: null, burn_rate: null } }, `bucket ${i} is empty`);
      }
      // p95 of each bucket is that of its stored, served SLIs.
      for (const point of [early, late]) {
        const rows = await p.facade.deps.access.database.query<{ latency_ms: number }>(
          'SELECT latency_ms FROM slo_requests WHERE endpoint = $1 AND ok AND at > $2 AND at <= $3',
          [ENDPOINT, new Date(point.from), new Date(point.to)],
        );
        assert.equal(rows.length, point.latency.served);
        const expected = percentileCont(rows.map((r) => Number(r.latency_ms)), 0.95);
        assert.ok(Math.abs(point.p95_ms! - expected) < 0.002, `p95 ${point.p95_ms} vs ${expected}`);
      }
      // The buckets add up to the window's figures.
      assert.equal(points.reduce((n, x) => n + x.requests, 0), d.overall.requests);
      assert.equal(points.reduce((n, x) => n + x.errors, 0), d.overall.errors);
      // A day is cut in 5-minute buckets, a week in hours.
      assert.equal((await dashboard(p.url, 'window_minutes=1440&include_endpoints=false')).series.bucket_minutes, 5);
      const week = await dashboard(p.url, 'window_minutes=10080&include_endpoints=false');
      assert.deepEqual([week.series.bucket_minutes, week.series.points.length], [60, 168]);
    } finally {
      frozenAt = null;
    }
  });

  test('query bounds: window_minutes 5..10080, include_endpoints boolean, endpoint length', async () => {
    for (const query of ['window_minutes=4', 'window_minutes=10081', 'window_minutes=1.5', 'include_endpoints=maybe', `endpoint=${'x'.repeat(201)}`]) {
      const res = await fetch(`${p.url}/api/slo/dashboard?${query}`, { headers: admin });
      assert.equal(res.status, 422, query);
      assert.equal(((await res.json()) as { code: string }).code, 'VALIDATION_FAILED');
    }
    for (const query of ['window_minutes=4', 'window_minutes=10081']) {
      const res = await fetch(`${p.url}/api/slo/alerts?${query}`, { headers: admin });
      assert.equal(res.status, 422, query);
      await res.arrayBuffer();
    }
    assert.equal((await dashboard(p.url, 'window_minutes=10080')).window_minutes, 10080);
    assert.equal((await dashboard(p.url, '')).window_minutes, 60);
  });
});
