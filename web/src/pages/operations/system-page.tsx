/**
 * /ops/system: the platform at a glance (GET /api/system/info: version, uptime, process, engines
 * and their devices, storage, telemetry), the retention of each kind of stored data (GET
 * /api/system/cleanup/config) and "Run cleanup now" (POST /api/system/cleanup/run, after a
 * confirmation; the API has no dry run) with what the run removed.
 */
import { useEffect, useState } from 'preact/hooks';
import { messageFor } from '../../lib/messages.js';
import { bytes, count, decimal, duration } from './format.js';
import { when, words } from '../../lib/format.js';
import { ErrorLine, OpsFrame } from './ops-frame.js';
import { cleanupConfig, runCleanup, systemInfo, type CleanupConfig, type CleanupReport, type SystemInfo } from './ops-api.js';
import { Fact } from '../../components/fact.js';
import { OutcomeView, useAction, useOutcome } from '../../components/outcome.js';
import { Confirm } from '../../components/confirm.js';

/** The system page. */
export function SystemPage() {
  return (
    <OpsFrame title="System" intro="Version, engines, devices and storage of the platform, the retention of stored data and the cleanup.">
      <SystemContent />
    </OpsFrame>
  );
}

function Info(props: { info: SystemInfo }) {
  const { info } = props;
  const s = info.storage;
  return (
    <>
      <section class="card" aria-labelledby="sys-facade">
        <h2 id="sys-facade">Facade</h2>
        <dl class="ops-facts" id="sys-facts">
          <div>
            <dt>Version</dt>
            <dd>
              {info.service} {info.version}
            </dd>
          </div>
          <div>
            <dt>Up for</dt>
            <dd>
              {duration(info.uptime_sec)} (since {when(info.started_at)})
            </dd>
          </div>
          <div>
            <dt>Process</dt>
            <dd>
              pid {info.process.pid}, Node.js {info.process.node}, {info.process.platform}/{info.process.arch}, {info.process.cpus} CPUs
            </dd>
          </div>
          <Fact term="Load average">{info.process.load_average.map((l) => decimal(l, 2)).join(' / ')}</Fact>
          <div>
            <dt>Memory</dt>
            <dd>
              {bytes(info.process.rss_bytes)} resident, {bytes(info.process.heap_used_bytes)} heap; {bytes(info.process.memory_free_bytes)} free of {bytes(info.process.memory_total_bytes)}
            </dd>
          </div>
          <div>
            <dt>Telemetry</dt>
            <dd>
              {info.telemetry.enabled ? `on (${info.telemetry.service_name ?? 'unnamed'})` : 'off'}
              {info.telemetry.metrics_port !== null ? `, metrics on port ${info.telemetry.metrics_port}` : ''}
              {info.telemetry.trace_exporters.length > 0 ? `, traces to ${info.telemetry.trace_exporters.join(', ')}` : ''}
            </dd>
          </div>
        </dl>
      </section>
      <section class="card" aria-labelledby="sys-engines">
        <h2 id="sys-engines">Engines</h2>
        {info.cluster_error && <p class="warn">The scheduler could not be asked for the nodes ({info.cluster_error}).</p>}
        <div class="table-wrap" role="region" aria-label="Engines table" tabIndex={0}>
          <table class="ops-table" id="sys-engine-table">
            <thead>
              <tr>
                <th scope="col">Engine</th>
                <th scope="col">Ready</th>
                <th scope="col">Nodes ready</th>
                <th scope="col">Voices</th>
                <th scope="col">Devices</th>
              </tr>
            </thead>
            <tbody>
              {info.engines.map((e) => (
                <tr key={e.name}>
                  <th scope="row">{e.name}</th>
                  <td>{e.ready ? 'yes' : 'no'}</td>
                  <td>{count(e.nodes_ready)}</td>
                  <td>{count(e.voice_count)}</td>
                  <td>{e.devices.join(', ') || '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        {info.engines.length === 0 && <p class="hint">No engine is known.</p>}
      </section>
      <section class="card" aria-labelledby="sys-storage">
        <h2 id="sys-storage">Storage</h2>
        <dl class="ops-facts">
          <div>
            <dt>Database</dt>
            <dd>
              {s.database.kind}, schema <span class="ops-mono">{s.database.schema}</span>, {bytes(s.database.size_bytes)}
            </dd>
          </div>
          <Fact term="Key-value store">{s.kv.kind}</Fact>
          <div>
            <dt>Data folder</dt>
            <dd class="ops-mono">{s.data_dir.path}</dd>
          </div>
          <Fact term="Audio artifacts">{s.data_dir.artifacts ? `${count(s.data_dir.artifacts.files)} files, ${bytes(s.data_dir.artifacts.bytes)}` : 'none'}</Fact>
          <Fact term="Disk">{s.data_dir.disk ? `${bytes(s.data_dir.disk.free_bytes)} free of ${bytes(s.data_dir.disk.total_bytes)}` : '—'}</Fact>
          <Fact term="SLI rows">{s.slo_requests ? `${count(s.slo_requests.rows)}, oldest ${when(s.slo_requests.oldest)}` : '—'}</Fact>
        </dl>
      </section>
    </>
  );
}

function retention(sec: number | null): string {
  return sec === null ? 'kept' : duration(sec);
}

function Report(props: { report: CleanupReport; title: string; id: string }) {
  const r = props.report;
  return (
    <div class="ops-report" id={props.id}>
      <h3>{props.title}</h3>
      <p>
        {r.trigger === 'manual' ? 'Run by hand' : 'Scheduled run'} at {when(r.started_at)}, {decimal(r.duration_ms, 0)} ms: <strong>{count(r.removed_total)} removed</strong>.
      </p>
      <div class="table-wrap" role="region" aria-label="Cleanup report table" tabIndex={0}>
        <table class="ops-table">
          <thead>
            <tr>
              <th scope="col">Data</th>
              <th scope="col">Status</th>
              <th scope="col">Removed</th>
              <th scope="col">Freed</th>
              <th scope="col">Note</th>
            </tr>
          </thead>
          <tbody>
            {r.items.map((i) => (
              <tr key={i.name} data-item={i.name}>
                <th scope="row">{words(i.name)}</th>
                <td class={i.status === 'failed' ? 'error' : ''}>{words(i.status)}</td>
                <td>{count(i.removed)}</td>
                <td>{bytes(i.bytes_freed)}</td>
                <td>{i.note}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}

function Cleanup(props: { config: CleanupConfig; onRan: () => void }) {
  const { config } = props;
  const [confirming, setConfirming] = useState(false);
  const [report, setReport] = useState<CleanupReport | null>(null);
  const [outcome, control] = useOutcome();
  const [busy, run] = useAction(control);
  const clean = () =>
    run(async () => {
      const r = await runCleanup();
      setConfirming(false);
      setReport(r);
      props.onRan();
      return `Cleanup done: ${count(r.removed_total)} removed.`;
    });
  return (
    <section class="card" aria-labelledby="sys-cleanup">
      <h2 id="sys-cleanup">Retention and cleanup</h2>
      <p class="hint">
        {config.interval_minutes === 0 ? 'Runs only on demand.' : `Runs every ${count(config.interval_minutes)} minutes; next at ${when(config.next_run_at)}.`}
      </p>
      <div class="table-wrap" role="region" aria-label="Retention table" tabIndex={0}>
        <table class="ops-table" id="sys-retention">
          <thead>
            <tr>
              <th scope="col">Data</th>
              <th scope="col">Retention</th>
              <th scope="col">Where</th>
              <th scope="col">Note</th>
            </tr>
          </thead>
          <tbody>
            {config.items.map((i) => (
              <tr key={i.name}>
                <th scope="row">{words(i.name)}</th>
                <td>{i.managed ? retention(i.retention_seconds) : 'never deleted'}</td>
                <td class="ops-mono">{i.location ?? '—'}</td>
                <td>{i.note}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {confirming ? (
        <Confirm
          id="cleanup-confirm-text"
          question="Delete now every item older than its retention? This cannot be undone (the API has no dry run)."
          yes={busy ? 'Cleaning up…' : 'Yes, run the cleanup'}
          busy={busy}
          onYes={() => void clean()}
          onNo={() => setConfirming(false)}
        />
      ) : (
        <div class="actions">
          <button type="button" onClick={() => setConfirming(true)}>
            Run cleanup now
          </button>
        </div>
      )}
      <OutcomeView outcome={outcome} />
      {report ? <Report report={report} title="This run" id="cleanup-report" /> : config.last_run ? <Report report={config.last_run} title="Last run" id="cleanup-last" /> : <p class="hint">No run yet since the facade started.</p>}
    </section>
  );
}

function SystemContent() {
  const [info, setInfo] = useState<SystemInfo | null>(null);
  const [config, setConfig] = useState<CleanupConfig | null>(null);
  const [error, setError] = useState('');
  const [reload, setReload] = useState(0);
  useEffect(() => {
    const abort = new AbortController();
    Promise.all([systemInfo(abort.signal), cleanupConfig(abort.signal)]).then(
      ([i, c]) => {
        setInfo(i);
        setConfig(c);
        setError('');
      },
      (err: unknown) => {
        if (!abort.signal.aborted) setError(messageFor(err));
      },
    );
    return () => abort.abort();
  }, [reload]);
  return (
    <>
      <ErrorLine message={error} />
      {info && <Info info={info} />}
      {config && <Cleanup config={config} onRan={() => setReload((n) => n + 1)} />}
    </>
  );
}
