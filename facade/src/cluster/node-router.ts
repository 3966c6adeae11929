/**
 * Lookaside load balancing: the facade keeps a local routing view of the inference nodes,
 * refreshed in the background from the scheduler's ListNodes, and picks the node of each
 * synchronous request itself with the scheduler's own policy code (services/common/src/routing).
 * No request waits for the scheduler once the first view has arrived.
 *
 * Each node's entry counts the work this facade routed to it since the node's last status report
 * (`routedSinceReport`); the count survives refreshes while the report is the same one and, when
 * the scheduler holds a newer report (a later `lastHeartbeatUnixMs`), which includes that work in
 * the node's queued work, restarts from the work routed in the last IN_TRANSIT_MS before that
 * report: requests the node may not have counted yet when it wrote it. Other facade replicas' work
 * shows up at the next report.
 */
import { AsyncResource } from 'node:async_hooks';
import type { NodeView } from '@tts/proto/scheduler';
import { NodeState, type NodeStatusReport } from '@tts/proto/synthesis';
import { TtsError, callUnary, schedulerClient, synthesizerClient, createLogger, type Logger } from '@tts/common';
import {
  candidates,
  chargeRouted,
  createRoutingPolicy,
  requiredEngine,
  routeOrError,
  type RoutableNode,
  type RoutedWork,
  type RouteRequest,
  type RoutingPolicy,
  type RoutingPolicyName,
} from '@tts/common/routing';

/** Options of the router. */
export interface NodeRouterOptions {
  /** Scheduler gRPC address (ListNodes). */
  readonly schedulerAddress: string;
  /** The platform credential the scheduler requires (TTS_INTERNAL_TOKEN). */
  readonly internalToken?: string | undefined;
  /** Routing policy; the scheduler's SCHEDULER_ROUTING. @default "least-loaded" */
  readonly policy?: RoutingPolicyName;
  /** Interval between background refreshes of the view, ms. @default 250 */
  readonly refreshMs?: number;
  /**
   * Age of the last successful refresh after which the view is stale (the scheduler has been
   * unreachable that long, so nodes may be gone). Routing keeps using it, since the gateway retries
   * a node that fails on another; the router logs the condition and reports it in stats(). @default 5000
   */
  readonly staleAfterMs?: number;
  /** Deadline of one ListNodes call, ms. @default 2000 */
  readonly fetchTimeoutMs?: number;
  readonly logger?: Logger;
  /** Random source of the policy (power of two choices); tests inject it. @default Math.random */
  readonly random?: () => number;
}

/** What routing needs of a synchronous request. */
export type RoutedRequest = Pick<RouteRequest, 'voice' | 'engine' | 'characters' | 'budgetSeconds' | 'tenant' | 'tenantWeight' | 'session'>;

/** The node chosen for a request. */
export interface RoutedNode {
  readonly nodeId: string;
  /** gRPC address (host:port) of its Synthesizer. */
  readonly address: string;
  /** Estimated seconds of work queued ahead of the request on that node. */
  readonly estimatedStartSeconds: number;
}

/** Counters and age of the routing view. */
export interface NodeRouterStats {
  /** ListNodes calls completed (successful or not). */
  readonly fetches: number;
  /** ListNodes calls that failed. */
  readonly failures: number;
  /** When the view in use was fetched (epoch ms); undefined before the first success. */
  readonly fetchedAtMs: number | undefined;
  /** True when the view is older than staleAfterMs. */
  readonly stale: boolean;
  /** Nodes of the view that are healthy and READY. */
  readonly readyNodes: number;
  /** A ListNodes call is under way. */
  readonly refreshing: boolean;
}

/**
 * How long before a node's report work routed to it may still be missing from the report (on its
 * way, or not yet counted by a busy node). Counting such work twice overestimates the wait by a
 * moment; missing it lets a burst through admission. Compares the facade's clock with the
 * scheduler's (the report's time), which NTP keeps within a few ms of each other.
 */
const IN_TRANSIT_MS = 500;

/** One node of the routing view. */
interface RouterEntry extends RoutableNode {
  readonly status: NodeStatusReport;
  /** Scheduler time of the node's report; a newer one resets routedSinceReport. */
  readonly reportedAtMs: number;
  routedSinceReport: number;
  routedByEngine: Map<string, RoutedWork>;
  /** Work this facade routed to the node in the last IN_TRANSIT_MS (wall time, estimated seconds, engine and tenant). */
  readonly recent: { readonly atMs: number; readonly seconds: number; readonly engine: string; readonly tenant: string }[];
}

/** A fetched view: the scheduler's answer and the routing entries built from it. */
interface RoutingView {
  readonly nodes: readonly NodeView[];
  /** Every known node (healthy or not): tells an unknown engine from an unavailable one. */
  readonly all: readonly RouterEntry[];
  /** Healthy, READY nodes: the ones routed to. */
  readonly ready: readonly RouterEntry[];
  readonly fetchedAtMs: number;
}

/** The facade's local, periodically refreshed view of the nodes, and the routing over it. */
export class NodeRouter {
  private readonly policy: RoutingPolicy;
  private readonly refreshMs: number;
  private readonly staleAfterMs: number;
  private readonly fetchTimeoutMs: number;
  private readonly logger: Logger;
  /** Background refreshes run here, outside the async context (trace, request id) of whichever request started them. */
  private readonly scope = new AsyncResource('tts.NodeRouter');
  private view: RoutingView | undefined;
  private pending: Promise<RoutingView> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private timerDueMs = Number.POSITIVE_INFINITY;
  private lastFetchStartMs = Number.NEGATIVE_INFINITY;
  /** invalidate() came while a refresh was under way: refresh again right after it. */
  private again = false;
  private started = false;
  private closed = false;
  /** The last ListNodes failed (logged once per outage). */
  private failing = false;
  /** The stale view was logged during this outage. */
  private staleLogged = false;
  private fetches = 0;
  private failures = 0;

  constructor(private readonly options: NodeRouterOptions) {
    this.policy = createRoutingPolicy(options.policy ?? 'least-loaded', options.random);
    this.refreshMs = options.refreshMs ?? 250;
    this.staleAfterMs = options.staleAfterMs ?? 5000;
    this.fetchTimeoutMs = options.fetchTimeoutMs ?? 2000;
    this.logger = options.logger ?? createLogger('facade');
  }

  /**
   * Chooses the node for a request, skipping `exclude` (nodes it already failed on). Answers from
   * the cached view; only the very first call (no view yet) waits for ListNodes. Throws the
   * routing errors of routeOrError (TTS_OVERLOADED when the request has a budget that no node's
   * estimated wait plus its cost fits), and TTS_NO_NODE_AVAILABLE when there is no view at all.
   */
  async pick(req: RoutedRequest, exclude: readonly string[] = []): Promise<RoutedNode> {
    this.start();
    const view = this.view ?? (await this.firstView());
    const route = { voice: req.voice, engine: req.engine, characters: req.characters, excludeNodeIds: exclude, budgetSeconds: req.budgetSeconds, tenant: req.tenant, tenantWeight: req.tenantWeight, session: req.session };
    const trusted = this.suspects.size === 0 ? view.ready : view.ready.filter((e) => this.suspects.get(e.status.nodeId) !== e.reportedAtMs);
    // With every candidate suspect, trying one beats refusing the request.
    const decision = trusted.length > 0 && candidates(trusted, route).length > 0
      ? routeOrError(view.all, trusted, this.policy, route)
      : routeOrError(view.all, view.ready, this.policy, route);
    const now = Date.now();
    const recent = decision.entry.recent;
    while (recent.length > 0 && recent[0]!.atMs < now - IN_TRANSIT_MS) recent.shift();
    recent.push({ atMs: now, seconds: decision.costSeconds, engine: requiredEngine(route), tenant: req.tenant ?? '' });
    return { nodeId: decision.entry.status.nodeId, address: decision.entry.status.address, estimatedStartSeconds: decision.startSeconds };
  }

  /**
   * The scheduler's node list, at most `maxAgeMs` old: the shared view when it is recent enough,
   * else a refresh. Throws TTS_NO_NODE_AVAILABLE when the scheduler is unreachable.
   */
  async listNodes(maxAgeMs: number): Promise<readonly NodeView[]> {
    this.start();
    if (this.view && Date.now() - this.view.fetchedAtMs <= maxAgeMs) return this.view.nodes;
    try {
      return (await this.refresh()).nodes;
    } catch (err) {
      throw unreachable(err);
    }
  }

  /**
   * The view may be wrong (a node call failed): refreshes in the background now, or right after the
   * refresh under way; at most one ListNodes per 50 ms however often it is called.
   */
  invalidate(): void {
    this.start();
    if (this.closed) return;
    if (this.pending) this.again = true;
    else this.schedule(this.soonMs());
  }

  /**
   * A call could not reach the node (connection refused or reset, or it is shutting down): picks
   * skip it until the scheduler has a newer report of it, so a node that died is not tried by
   * every request until the scheduler notices; a node that is fine is back after its next
   * heartbeat. Also refreshes the view.
   */
  suspect(nodeId: string): void {
    const entry = this.view?.all.find((e) => e.status.nodeId === nodeId);
    if (entry !== undefined) this.suspects.set(nodeId, entry.reportedAtMs);
    this.invalidate();
  }

  /** Counters and age of the view. */
  stats(): NodeRouterStats {
    return {
      fetches: this.fetches,
      failures: this.failures,
      fetchedAtMs: this.view?.fetchedAtMs,
      stale: this.isStale(),
      readyNodes: this.view?.ready.length ?? 0,
      refreshing: this.pending !== undefined,
    };
  }

  /**
   * Starts the background refresh now rather than at the first request (the facade does so at
   * start-up, so its channels to the nodes are connected before the first request arrives).
   */
  warm(): void {
    this.start();
  }

  /** Stops the background refresh (shutdown). */
  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private start(): void {
    if (this.started || this.closed) return;
    this.started = true;
    this.schedule(0);
  }

  private async firstView(): Promise<RoutingView> {
    try {
      return await this.refresh();
    } catch (err) {
      // A concurrent refresh may have succeeded meanwhile.
      if (this.view) return this.view;
      throw unreachable(err);
    }
  }

  /** Runs the next background refresh in `delayMs` (sooner than an already planned one only). */
  private schedule(delayMs: number): void {
    if (this.closed) return;
    const due = Date.now() + delayMs;
    if (this.timer && this.timerDueMs <= due) return;
    clearTimeout(this.timer);
    this.timerDueMs = due;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.timerDueMs = Number.POSITIVE_INFINITY;
      // Failures are counted and logged by fetch(); the next refresh is planned either way.
      this.refresh().catch(() => undefined);
    }, delayMs);
    this.timer.unref();
  }

  /** Delay of a refresh asked for by invalidate(): none, unless the last one started under 50 ms ago. */
  private soonMs(): number {
    return Math.max(0, this.lastFetchStartMs + Math.min(50, this.refreshMs) - Date.now());
  }

  /** One ListNodes at a time; the next background refresh is planned when it ends. */
  private refresh(): Promise<RoutingView> {
    this.pending ??= this.scope.runInAsyncScope(() =>
      this.fetch().finally(() => {
        this.pending = undefined;
        this.fetches++;
        const soon = this.again;
        this.again = false;
        this.schedule(soon ? this.soonMs() : this.refreshMs);
      }),
    );
    return this.pending;
  }

  /** Node addresses whose channel this router has asked to connect. */
  private readonly connected = new Set<string>();
  /** Nodes a call could not reach, with the report they had then: skipped until a newer report. */
  private readonly suspects = new Map<string, number>();

  private async fetch(): Promise<RoutingView> {
    this.lastFetchStartMs = Date.now();
    const { internalToken } = this.options;
    const scheduler = schedulerClient(this.options.schedulerAddress, internalToken === undefined ? undefined : { kind: 'internal', token: internalToken });
    let nodes: NodeView[];
    try {
      nodes = (await callUnary(scheduler.listNodes.bind(scheduler), {}, { timeoutMs: this.fetchTimeoutMs })).nodes;
    } catch (err) {
      this.failures++;
      if (!this.failing) {
        this.failing = true;
        this.logger.warn('scheduler unreachable; routing from the last view of the nodes', {
          scheduler: this.options.schedulerAddress,
          view_age_ms: this.view ? Date.now() - this.view.fetchedAtMs : null,
          error: err instanceof TtsError ? err.code : String(err),
        });
      }
      if (this.isStale()) this.logStaleOnce();
      throw err;
    }
    if (this.failing) {
      this.failing = false;
      this.staleLogged = false;
      this.logger.info('scheduler reachable again; routing view refreshed', { scheduler: this.options.schedulerAddress, nodes: nodes.length });
    }
    const view = this.build(nodes);
    this.view = view;
    return view;
  }

  private logStaleOnce(): void {
    if (this.staleLogged) return;
    this.staleLogged = true;
    this.logger.warn('routing view is stale: nodes may be gone; failed nodes are retried elsewhere', {
      scheduler: this.options.schedulerAddress,
      view_age_ms: this.view ? Date.now() - this.view.fetchedAtMs : null,
    });
  }

  /** Entries of a fresh answer, keeping each node's routed work while its report is unchanged. */
  private build(nodes: NodeView[]): RoutingView {
    const previous = new Map((this.view?.all ?? []).map((e) => [e.status.nodeId, e]));
    const all: RouterEntry[] = [];
    const ready: RouterEntry[] = [];
    for (const n of nodes) {
      if (!n.status) continue;
      const before = previous.get(n.status.nodeId);
      const sameReport = before !== undefined && before.reportedAtMs === n.lastHeartbeatUnixMs;
      const recent = (before?.recent ?? []).filter((r) => r.atMs >= n.lastHeartbeatUnixMs - IN_TRANSIT_MS);
      const entry: RouterEntry = sameReport
        ? { status: n.status, reportedAtMs: n.lastHeartbeatUnixMs, routedSinceReport: before.routedSinceReport, routedByEngine: before.routedByEngine, recent }
        : { status: n.status, reportedAtMs: n.lastHeartbeatUnixMs, routedSinceReport: 0, routedByEngine: new Map(), recent };
      if (!sameReport) for (const r of recent) chargeRouted(entry, r.engine, r.tenant, r.seconds);
      all.push(entry);
      if (n.healthy && n.status.state === NodeState.NODE_STATE_READY) {
        ready.push(entry);
        // Connect to a node as soon as it is known, so the first request does not pay for the
        // HTTP/2 connection (the channel connects in the background; an idle one reconnects).
        if (!this.connected.has(n.status.address)) {
          this.connected.add(n.status.address);
          synthesizerClient(n.status.address).getChannel().getConnectivityState(true);
        }
      }
    }
    for (const [nodeId, reportedAtMs] of this.suspects) {
      if (!all.some((e) => e.status.nodeId === nodeId && e.reportedAtMs === reportedAtMs)) this.suspects.delete(nodeId);
    }
    return { nodes, all, ready, fetchedAtMs: Date.now() };
  }

  private isStale(): boolean {
    return this.view !== undefined && Date.now() - this.view.fetchedAtMs > this.staleAfterMs;
  }
}

/** The error of a routing view that cannot be had. */
function unreachable(err: unknown): TtsError {
  return new TtsError('TTS_NO_NODE_AVAILABLE', 'The scheduler is unreachable.', { retryAfterSec: 2, cause: err });
}
