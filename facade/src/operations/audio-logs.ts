/**
 * The audio pipeline's recent events across the cluster: each known node is asked for its ring
 * (RecentAudioEvents) in parallel, and the answers are merged newest first. A node that does not
 * answer in time is reported as unreachable; the others' events are still returned.
 */
import type { AudioEvent } from '@tts/proto/synthesis';
import { callUnary, synthesizerClient } from '@tts/common';
import type { ClusterView } from '../cluster/cluster.js';
import { round } from '../presenters/round.js';

/** Events asked of each node, and the most returned in all. */
export const AUDIO_LOG_LIMITS = { perNode: 200, total: 500 } as const;

/** The merged events and which nodes answered. */
export interface AudioLogs {
  readonly events: readonly AudioEvent[];
  readonly nodes: readonly { readonly nodeId: string; readonly reachable: boolean; readonly events: number }[];
}

/** Collects the recent audio events of every node the scheduler knows. */
export async function collectAudioLogs(cluster: ClusterView, limits = AUDIO_LOG_LIMITS): Promise<AudioLogs> {
  const snapshot = await cluster.snapshot();
  const answers = await Promise.all(
    snapshot.nodes.map(async (node) => {
      const client = synthesizerClient(node.address);
      try {
        const res = await callUnary(client.recentAudioEvents.bind(client), { limit: limits.perNode }, { timeoutMs: 2000 });
        return { nodeId: node.nodeId, reachable: true, events: res.events };
      } catch {
        return { nodeId: node.nodeId, reachable: false, events: [] as AudioEvent[] };
      }
    }),
  );
  const events = answers.flatMap((a) => a.events).sort((a, b) => b.timeUnixMs - a.timeUnixMs).slice(0, limits.total);
  return { events, nodes: answers.map((a) => ({ nodeId: a.nodeId, reachable: a.reachable, events: a.events.length })) };
}


/** GET /api/debug/audio-logs body. */
export function audioLogsView(logs: AudioLogs): Record<string, unknown> {
  return {
    count: logs.events.length,
    nodes: logs.nodes.map((n) => ({ node_id: n.nodeId, reachable: n.reachable, events: n.events })),
    events: logs.events.map((e) => ({
      time: new Date(e.timeUnixMs).toISOString(),
      request_id: e.requestId,
      trace_id: e.traceId === '' ? null : e.traceId,
      node_id: e.nodeId,
      engine: e.engine,
      voice: e.voice,
      format: e.format,
      streaming: e.streaming,
      outcome: e.outcome,
      error_code: e.errorCode === '' ? null : e.errorCode,
      characters: e.characters,
      sentences: e.sentences,
      sample_rate: e.sampleRate,
      audio_seconds: round(e.audioSeconds, 4),
      compute_seconds: round(e.computeSeconds, 4),
      real_time_factor: round(e.realTimeFactor, 5),
      batch_size: e.batchSize,
      queue_ms: round(e.queueMs, 3),
      time_to_first_audio_ms: round(e.timeToFirstAudioMs, 3),
      encode_ms: round(e.encodeMs, 3),
      total_ms: round(e.totalMs, 3),
    })),
  };
}
