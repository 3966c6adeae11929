import { SPEED_RANGE } from '@tts/common';
import { AUDIO_FORMATS } from '@tts/common/audio';
import { CHALLENGE_PATH, RATE_PROFILES } from '../identity/index.js';
import type { OperationHandler } from '../handler-context.js';

/** GET /api/web/config: what a browser client needs to know to submit and follow web jobs. */
export const getWebConfig: OperationHandler<'getWebConfig'> = async ({ res, deps }) => {
  res.json({
    auth_mode: deps.config.authMode,
    challenge: { path: CHALLENGE_PATH, algorithm: 'sha256', difficulty_bits: deps.access.challenge.difficultyBits },
    rate_limit: { limit: RATE_PROFILES.challenge.limit, window_sec: RATE_PROFILES.challenge.windowSec },
    max_text_chars: deps.config.maxTextChars,
    modes: ['auto', 'preset'],
    default_voice: deps.config.defaultVoice,
    format: 'wav',
    formats: AUDIO_FORMATS,
    speed: { min: SPEED_RANGE.min, max: SPEED_RANGE.max, default: 1 },
    job_token_ttl_sec: deps.jobTokens.ttlSec,
    poll_interval_ms: 500,
  });
};
