import type { sendUnaryData, ServerUnaryCall } from '@grpc/grpc-js';
import type { NodeStatusReport, NodeStatusRequest } from '@tts/proto/synthesis';
import { VERSION } from '@tts/common';
import type { NodeContext } from '../domain/node-context.js';

/** The node's load and engine report (also sent with every heartbeat). */
export function nodeStatusReport(ctx: NodeContext): NodeStatusReport {
  const a = ctx.admission;
  const voices = ctx.registry.voices();
  return {
    nodeId: ctx.nodeId,
    address: ctx.address,
    state: ctx.state,
    queueDepth: a.queueDepth(),
    inFlight: a.inFlight(),
    realTimeFactor: a.realTimeFactor(),
    secondsPerChar: a.secondsPerChar(),
    loadedVoices: voices.filter((v) => ctx.registry.isLoaded(v)).map((v) => v.id),
    unloadedVoices: voices.filter((v) => !ctx.registry.isLoaded(v)).map((v) => v.id),
    engines: ctx.registry.list().map((s) => {
      const load = a.engineLoad(s.name);
      const residency = ctx.registry.residencyOf(s.name);
      return {
        name: s.name,
        description: s.engine?.description ?? '',
        ready: s.ready,
        voiceCount: s.ready ? ctx.registry.voicesOf(s.name).length : 0,
        nativeSpeed: s.engine?.nativeSpeed != null,
        streaming: true,
        device: s.engine?.device ?? 'cpu',
        maxBatchSize: s.engine?.maxBatchSize ?? 1,
        error: s.error ?? '',
        features: [...(s.engine?.features ?? [])],
        capacity: load?.capacity ?? 0,
        queuedWorkSeconds: load?.queuedWorkSeconds ?? 0,
        secondsPerChar: load?.secondsPerChar ?? 0,
        tenants: load ? [...load.tenants] : [],
        loaded: residency?.loaded ?? false,
        loadMs: residency?.lastLoadMs ?? s.loadMs,
        idleUnloadSec: residency?.idleUnloadSec ?? 0,
      };
    }),
    capacity: a.capacity(),
    queuedWorkSeconds: a.queuedWorkSeconds(),
    version: VERSION,
    startedUnixMs: ctx.startedUnixMs,
    warmup: ctx.warmup,
    analysis: [...ctx.analysis.features],
    sessions: a.sessions(),
    maxSessions: a.maxSessions(),
  };
}

/** NodeStatus: load, state and engines of this node. */
export function nodeStatus(ctx: NodeContext) {
  return (_call: ServerUnaryCall<NodeStatusRequest, NodeStatusReport>, callback: sendUnaryData<NodeStatusReport>): void => {
    callback(null, nodeStatusReport(ctx));
  };
}
