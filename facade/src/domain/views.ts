/** JSON shapes of cluster facts, shared by several endpoints. */
import type { NodeStatusReport, Voice } from '@tts/proto/synthesis';

/** A voice as the REST API shows it. */
export function voiceJson(v: Voice): Record<string, unknown> {
  return {
    id: v.id,
    name: v.name,
    language: v.language,
    languages: v.languages,
    gender: v.gender === '' ? 'unknown' : v.gender,
    engine: v.engine,
    sample_rate: v.sampleRate,
    quality: v.quality,
    description: v.description,
  };
}

/** Engines across nodes: ready where any ready node has them ready. */
export function enginesJson(nodes: readonly NodeStatusReport[], ready: readonly NodeStatusReport[]): Record<string, unknown>[] {
  const byName = new Map<string, Record<string, unknown>>();
  for (const n of nodes) {
    for (const e of n.engines) {
      const isReadyHere = e.ready && ready.includes(n);
      const prev = byName.get(e.name);
      if (!prev) {
        byName.set(e.name, {
          name: e.name,
          description: e.description,
          ready: isReadyHere,
          voice_count: e.voiceCount,
          native_speed: e.nativeSpeed,
          streaming: e.streaming,
          device: e.device,
          max_batch_size: e.maxBatchSize,
          features: e.features,
          nodes_ready: isReadyHere ? 1 : 0,
          error: e.ready ? null : e.error || null,
        });
      } else {
        prev['nodes_ready'] = (prev['nodes_ready'] as number) + (isReadyHere ? 1 : 0);
        if (isReadyHere) {
          prev['ready'] = true;
          prev['error'] = null;
          prev['voice_count'] = Math.max(prev['voice_count'] as number, e.voiceCount);
        }
      }
    }
  }
  return [...byName.values()].sort((a, b) => String(a['name']).localeCompare(String(b['name'])));
}
