/**
 * Limits of a speech request that every process checks or reports: one definition each. The
 * OpenAPI document states the same bounds for clients; a facade test keeps the two in agreement.
 */
/** Speaking rate: 1 is the voice's own; pitch is kept. */
export const SPEED_RANGE = Object.freeze({ min: 0.25, max: 4 } as const);

/** Output sample rates in Hz. */
export const SAMPLE_RATE_RANGE = Object.freeze({ min: 8000, max: 48000 } as const);

/** Bit rates of the lossy formats in kbit/s (8: the lowest of MPEG-2.5 layer III; 320: the highest of MPEG-1; Opus takes 6 to 510). */
export const BITRATE_RANGE_KBPS = Object.freeze({ min: 8, max: 320 } as const);

/** Longest `input` of POST /v1/audio/speech, in characters (OpenAI's limit). */
export const OPENAI_MAX_INPUT_CHARS = 4096;

/** Largest uploaded file (reference audio, watermark detection, slips), bytes: a 10-minute MP3 fits. */
export const DEFAULT_MAX_UPLOAD_BYTES = 25 * 1024 * 1024;

/** Accepted duration of a reference clip for voice cloning, seconds (the interface's guideline). */
export const REFERENCE_GUIDELINE = Object.freeze({ minSec: 3, maxSec: 10, minSampleRate: 16_000, channels: 1 } as const);
