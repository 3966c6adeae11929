import { AUDIO_FORMATS } from '../../../services/common/src/audio/index.js';
import { voiceJson } from '../domain/views.js';
import type { OperationHandler } from '../operation.js';

/** GET /api/capabilities: what this deployment can do right now. */
export const getCapabilities: OperationHandler = async ({ res, deps }) => {
  let voices: Record<string, unknown>[] = [];
  let engines: string[] = [];
  try {
    const snap = await deps.cluster.snapshot();
    voices = snap.voices.map(voiceJson);
    engines = [...new Set(snap.ready.flatMap((n) => n.engines.filter((e) => e.ready).map((e) => e.name)))].sort();
  } catch {
    // scheduler unreachable: report the static facts with no voices
  }
  res.json({
    modes: ['auto', 'preset'],
    voices,
    model: deps.config.defaultVoice,
    default_voice: deps.config.defaultVoice,
    engines,
    formats: AUDIO_FORMATS,
    features: {
      streaming: true,
      sse: true,
      openai_compatible: true,
      speed: true,
      sample_rate: true,
      text_normalization: true,
      ssml: false,
      voice_cloning: false,
      async_jobs: false,
    },
    limits: {
      max_text_chars: deps.config.maxTextChars,
      openai_max_input_chars: 4096,
      speed_min: 0.25,
      speed_max: 4,
      sample_rate_min: 8000,
      sample_rate_max: 48000,
      request_timeout_ms: deps.config.requestTimeoutMs,
      max_body_bytes: deps.config.maxBodyBytes,
    },
  });
};
