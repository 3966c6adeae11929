import { performance } from 'node:perf_hooks';
import type { WarmupReport } from '@tts/proto/synthesis';
import type { EngineRegistry } from '../engines/registry.js';

/** Synthesizes one short phrase with the first voice of every ready engine (and the default voice). */
export async function warmUp(registry: EngineRegistry): Promise<WarmupReport> {
  const started = performance.now();
  const voices = new Set<string>();
  for (const engine of registry.ready()) {
    const all = registry.voicesOf(engine.name);
    const v = all.find((x) => x.language.toLowerCase().startsWith('en')) ?? all[0];
    if (v) voices.add(v.id);
  }
  try {
    voices.add(registry.defaultVoice());
  } catch {
    // no engine ready: nothing to warm
  }
  let error = '';
  const warmed: string[] = [];
  for (const id of voices) {
    try {
      const { engine, voice } = registry.resolve(id);
      await registry.use(engine.name, () => engine.synthesize([{ text: 'Ready.', voice: voice.id, speed: 1 }]));
      warmed.push(id);
    } catch (err) {
      if (error === '') error = `${id}: ${err instanceof Error ? err.message : String(err)}`;
    }
  }
  return { done: true, durationMs: performance.now() - started, voices: warmed, error };
}
