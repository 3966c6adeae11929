/**
 * Starts a real platform in-process for integration tests: a scheduler and inference nodes as real
 * gRPC servers on loopback port 0, and the facade on an ephemeral HTTP port.
 */
import { setLogSink } from '../../services/common/src/logging/logger.js';
import { closeAllClients } from '../../services/common/src/grpc/clients.js';
import { start as startScheduler, type RunningScheduler } from '../../services/scheduler/src/index.js';
import { start as startNode, type NodeStartOptions, type RunningNode } from '../../services/inference-node/src/index.js';
import { start as startFacade, type FacadeStartOptions, type RunningFacade } from '../../facade/src/index.js';

if (process.env['TEST_LOGS'] !== '1') setLogSink(() => undefined);

/** A running test platform. */
export interface TestPlatform {
  readonly url: string;
  readonly scheduler: RunningScheduler;
  readonly nodes: RunningNode[];
  readonly facade: RunningFacade;
  /** Starts one more node registered with the scheduler. */
  addNode(options?: NodeStartOptions): Promise<RunningNode>;
  stop(): Promise<void>;
}

/** Options of startPlatform. */
export interface TestPlatformOptions {
  /** @default 1 */
  readonly nodes?: number;
  readonly node?: NodeStartOptions;
  readonly facade?: FacadeStartOptions;
}

/** Waits until `check` is true (polling), or throws after `timeoutMs`. */
export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 10_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

let nodeCounter = 0;

/** Starts scheduler, nodes and facade. */
export async function startPlatform(options: TestPlatformOptions = {}): Promise<TestPlatform> {
  const scheduler = await startScheduler({ host: '127.0.0.1', port: 0, heartbeatMs: 200, nodeTimeoutMs: 1500, staticNodes: [] });
  const nodes: RunningNode[] = [];
  const addNode = async (extra: NodeStartOptions = {}): Promise<RunningNode> => {
    const node = await startNode({
      host: '127.0.0.1',
      port: 0,
      nodeId: `test-node-${process.pid}-${++nodeCounter}`,
      schedulerAddress: scheduler.address,
      heartbeatMs: 200,
      festivalProcesses: 1,
      fliteWorkers: 2,
      ...options.node,
      ...extra,
    });
    nodes.push(node);
    await waitFor(() => scheduler.context.membership.ready().some((e) => e.status.nodeId === node.nodeId), 10_000, 'node registration');
    return node;
  };
  for (let i = 0; i < (options.nodes ?? 1); i++) await addNode();
  const facade = await startFacade({ host: '127.0.0.1', port: 0, schedulerAddress: scheduler.address, validateResponses: true, ...options.facade });
  return {
    url: facade.url,
    scheduler,
    nodes,
    facade,
    addNode,
    async stop() {
      await facade.stop(2000);
      await Promise.all(nodes.map((n) => n.stop(2000)));
      await scheduler.stop(1000);
      closeAllClients();
    },
  };
}

/** POSTs JSON and returns the response. */
export function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}
