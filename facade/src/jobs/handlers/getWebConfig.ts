import { SPEED_RANGE } from '@tts/common';
import { AUDIO_FORMATS } from '@tts/common/audio';
import { meteredSubjectOf } from '../../speech/metering.js';
import { CHALLENGE_PATH, RATE_PROFILES } from '../../identity/index.js';
import { callerOf } from '../../middleware/access.js';
import { handler, type Schema } from '../../handler-context.js';

/** GET /api/web/config: what a browser client needs to know to submit and follow web jobs, and the caller's own limits. */
export const getWebConfig = handler('getWebConfig', ['access', 'config', 'jobTokens'], async ({ res, deps }) => {
  const anonymousRate = { limit: RATE_PROFILES.challenge.limit, window_sec: RATE_PROFILES.challenge.windowSec };
  const caller = callerOf(res);
  const metered = meteredSubjectOf(caller);
  let callerLimits: Schema<'WebConfig'>['caller_limits'] = { identity: 'anonymous', tier: null, max_text_chars: deps.config.maxTextChars, rate_limit: anonymousRate };
  if (metered && caller.method === 'api_key') {
    callerLimits = { identity: 'api_key', tier: metered.tier.name, max_text_chars: metered.tier.maxTextLength, rate_limit: { limit: caller.key.ratePerMinute, window_sec: 60 } };
  } else if (metered && caller.method === 'studio') {
    callerLimits = { identity: 'studio', tier: metered.tier.name, max_text_chars: metered.tier.maxTextLength, rate_limit: { limit: metered.tier.ratePerMinute, window_sec: 60 } };
  }
  res.json({
    auth_mode: deps.config.authMode,
    challenge: { path: CHALLENGE_PATH, algorithm: 'sha256', difficulty_bits: deps.access.challenge.difficultyBits },
    rate_limit: anonymousRate,
    max_text_chars: deps.config.maxTextChars,
    modes: ['auto', 'preset'],
    default_voice: deps.config.defaultVoice,
    format: 'wav',
    formats: AUDIO_FORMATS,
    speed: { min: SPEED_RANGE.min, max: SPEED_RANGE.max, default: 1 },
    job_token_ttl_sec: deps.jobTokens.ttlSec,
    poll_interval_ms: 500,
    caller_limits: callerLimits,
  });
});
