/**
 * /ops/nodes: the inference nodes (state, load, engines, devices) from GET /api/system/info and
 * the queue from GET /api/web/system/status, refreshed every 3 seconds while the tab is visible,
 * with the time of the last update.
 */
import { messageFor } from '../../lib/messages.js';
import { count, decimal, duration } from './format.js';
import { ErrorLine, OpsFrame } from './ops-frame.js';
import { queueStatus, systemInfo, type QueueStatus, type SystemInfo } from './ops-api.js';
import { usePolling } from './use-polling.js';
import { Fact } from '../../components/fact.js';

/** How often the page refreshes, ms. */
const REFRESH_MS = 3000;

const load = async (signal: AbortSignal): Promise<{ info: SystemInfo; queue: QueueStatus }> => {
  const [info, queue] = await Promise.all([systemInfo(signal), queueStatus(signal)]);
  return { info, queue };
};

/** The nodes and queue page. */
export function NodesPage() {
  return (
    <OpsFrame title="Nodes and queue" intro={`The inference nodes the scheduler knows and the job queue, refreshed every ${REFRESH_MS / 1000} seconds while this tab is visible.`}>
      <NodesContent />
    </OpsFrame>
  );
}

function NodesContent() {
  const polled = usePolling(load, REFRESH_MS);
  const data = polled.value;
  const devicesOf = (engine: string): string => data?.info.engines.find((e) => e.name === engine)?.devices.join(', ') || '—';
  return (
    <>
      <section class="card" aria-labelledby="queue-title">
        <h2 id="queue-title">Queue</h2>
        <p class="hint" id="nodes-updated" aria-live="off">
          {polled.paused ? 'Paused while the tab is hidden. ' : ''}
          Last updated: {polled.updatedAt ? <time dateTime={polled.updatedAt.toISOString()}>{polled.updatedAt.toLocaleTimeString()}</time> : 'not yet'}
        </p>
        <ErrorLine message={polled.error ? messageFor(polled.error) : ''} />
        {data && (
          <dl class="ops-facts" id="queue-facts">
            <div>
              <dt>Status</dt>
              <dd>
                <span class={data.queue.status === 'ok' ? 'ok' : data.queue.status === 'degraded' ? 'warn' : 'error'}>{data.queue.status}</span>
              </dd>
            </div>
            <Fact term="Queue depth">{count(data.queue.queue_depth)}</Fact>
            <Fact term="Running">{count(data.queue.running)}</Fact>
            <div>
              <dt>Nodes ready</dt>
              <dd>
                {count(data.queue.nodes_ready)}
                {data.queue.nodes_total !== undefined ? ` of ${count(data.queue.nodes_total)}` : ''}
              </dd>
            </div>
            <Fact term="Wait estimate">{data.queue.eta_seconds === null || data.queue.eta_seconds === undefined ? '—' : duration(data.queue.eta_seconds)}</Fact>
          </dl>
        )}
      </section>
      <section class="card" aria-labelledby="nodes-title">
        <h2 id="nodes-title">Inference nodes</h2>
        {data?.info.cluster_error && <p class="warn">The scheduler could not be asked for the nodes ({data.info.cluster_error}).</p>}
        {data && data.info.nodes.length === 0 && <p class="hint">No inference node is registered.</p>}
        {data && data.info.nodes.length > 0 && (
          <div class="table-wrap" role="region" aria-label="Inference nodes table" tabIndex={0}>
            <table class="ops-table" id="nodes-table">
              <thead>
                <tr>
                  <th scope="col">Node</th>
                  <th scope="col">State</th>
                  <th scope="col">Load</th>
                  <th scope="col">Queue</th>
                  <th scope="col">Real-time factor</th>
                  <th scope="col">Engines (devices)</th>
                  <th scope="col">Version, uptime</th>
                </tr>
              </thead>
              <tbody>
                {data.info.nodes.map((n) => (
                  <tr key={n.node_id} data-node-id={n.node_id}>
                    <th scope="row">
                      <span class="ops-mono">{n.node_id}</span>
                      <br />
                      <span class="hint ops-mono">{n.address}</span>
                    </th>
                    <td>
                      <span class={n.ready ? 'ok' : 'warn'}>{n.state}</span>
                    </td>
                    <td>
                      {count(n.in_flight)} of {count(n.capacity)} in flight
                    </td>
                    <td>{count(n.queue_depth)}</td>
                    <td>{decimal(n.real_time_factor, 3)}</td>
                    <td class="ops-engines">{n.engines.map((e) => `${e} (${devicesOf(e)})`).join(', ') || '—'}</td>
                    <td>
                      {n.version}, {duration(n.uptime_sec)}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </>
  );
}
