import type { NodeStatusReport } from '@tts/proto/synthesis';
import { AUDIO_FORMATS } from '@tts/common/audio';
import { OPENAI_MAX_INPUT_CHARS, REFERENCE_GUIDELINE, SAMPLE_RATE_RANGE, SPEED_RANGE } from '@tts/common';
import { analysisFeaturesOf } from '../../cluster/analysis-features.js';
import { voiceJson } from '../../cluster/node-views.js';
import { handler } from '../../handler-context.js';

/** One ready engine's execution device and batching, merged over the ready nodes that run it. */
interface EngineDetail {
  name: string;
  device: string;
  max_batch_size: number;
  batching: boolean;
}

/** Device(s) and largest batch of each engine ready on some ready node, sorted by name. */
function engineDetails(ready: readonly NodeStatusReport[]): EngineDetail[] {
  const byName = new Map<string, { devices: Set<string>; maxBatch: number }>();
  for (const node of ready) {
    for (const e of node.engines) {
      if (!e.ready) continue;
      let detail = byName.get(e.name);
      if (detail === undefined) byName.set(e.name, (detail = { devices: new Set(), maxBatch: 1 }));
      for (const d of (e.device || 'cpu').split(',')) if (d.trim() !== '') detail.devices.add(d.trim());
      detail.maxBatch = Math.max(detail.maxBatch, e.maxBatchSize);
    }
  }
  return [...byName.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, d]) => ({ name, device: [...d.devices].sort().join(',') || 'cpu', max_batch_size: d.maxBatch, batching: d.maxBatch > 1 }));
}

/** GET /api/capabilities: what this deployment can do right now. */
export const getCapabilities = handler('getCapabilities', ['cluster', 'config', 'logger'], async ({ res, deps }) => {
  let voices: Record<string, unknown>[] = [];
  let engines: string[] = [];
  let details: EngineDetail[] = [];
  let analysis = analysisFeaturesOf([]);
  // Jobs are the scheduler's: they are offered while it answers.
  let schedulerReachable = false;
  try {
    const snap = await deps.cluster.snapshot();
    voices = snap.voices.map(voiceJson);
    engines = [...snap.engines];
    details = engineDetails(snap.ready);
    analysis = analysisFeaturesOf(snap.ready);
    schedulerReachable = true;
  } catch (err) {
    // Scheduler unreachable: report the static facts with no voices.
    deps.logger.warn('capabilities without the cluster view', { error: err instanceof Error ? err.message : String(err) });
  }
  res.json({
    modes: ['auto', 'preset'],
    voices,
    model: deps.config.defaultVoice,
    default_voice: deps.config.defaultVoice,
    engines,
    engine_details: details,
    formats: AUDIO_FORMATS,
    features: {
      streaming: true,
      sse: true,
      openai_compatible: true,
      speed: true,
      sample_rate: true,
      text_normalization: true,
      ssml: true,
      voice_cloning: analysis.cloning.available,
      async_jobs: schedulerReachable,
      reference_audio: true,
      batching: details.some((d) => d.batching),
    },
    limits: {
      max_text_chars: deps.config.maxTextChars,
      openai_max_input_chars: OPENAI_MAX_INPUT_CHARS,
      speed_min: SPEED_RANGE.min,
      speed_max: SPEED_RANGE.max,
      sample_rate_min: SAMPLE_RATE_RANGE.min,
      sample_rate_max: SAMPLE_RATE_RANGE.max,
      request_timeout_ms: deps.config.requestTimeoutMs,
      max_body_bytes: deps.config.maxBodyBytes,
      max_upload_bytes: deps.config.maxUploadBytes,
      reference_min_sec: REFERENCE_GUIDELINE.minSec,
      reference_max_sec: REFERENCE_GUIDELINE.maxSec,
    },
    analysis,
  });
});
