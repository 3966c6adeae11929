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

/** The voices of `engine` in a node's list, sorted. */
function voicesOf(ids: readonly string[], engine: string): string[] {
  return ids.filter((id) => id.startsWith(`${engine}:`)).sort();
}

/**
 * Engines across nodes: ready where any ready node has them ready; loaded voices are those some
 * ready node holds in memory, unloaded ones those every ready node offering them unloaded for idleness.
 */
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
          nodes_loaded: isReadyHere && e.loaded ? 1 : 0,
          idle_unload_sec: e.idleUnloadSec,
          loaded_voices: isReadyHere ? voicesOf(n.loadedVoices, e.name) : [],
          unloaded_voices: isReadyHere ? voicesOf(n.unloadedVoices, e.name) : [],
          error: e.ready ? null : e.error || null,
        });
      } else {
        prev['nodes_ready'] = (prev['nodes_ready'] as number) + (isReadyHere ? 1 : 0);
        if (isReadyHere) {
          prev['nodes_loaded'] = (prev['nodes_loaded'] as number) + (e.loaded ? 1 : 0);
          const loaded = new Set([...(prev['loaded_voices'] as string[]), ...voicesOf(n.loadedVoices, e.name)]);
          prev['loaded_voices'] = [...loaded].sort();
          prev['unloaded_voices'] = [...new Set([...(prev['unloaded_voices'] as string[]), ...voicesOf(n.unloadedVoices, e.name)])].filter((v) => !loaded.has(v)).sort();
        }
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
