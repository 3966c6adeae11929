/**
 * The provenance watermark: every audio a node outputs carries a keyed, inaudible mark whose
 * 32-bit payload names the request.
 *
 * Method (spread spectrum, after Cox et al. 1997 and Kirovski & Malvar 2003): each key derives
 * (HMAC-SHA256) a synchronisation pattern and one pattern per code bit: periodic pseudo-noise
 * sequences of 0.256 s, white between 400 and 3600 Hz and silent elsewhere. A payload is embedded
 * as one period (sync plus each bit's pattern, signed by the bit: 32 payload bits and a CRC-8)
 * repeated for the whole audio, scaled by the speech's short-term level (-36 dB: silent in
 * pauses, hidden under the speech) and read at the audio's rate by interpolation, so any rate
 * works and streams are marked chunk by chunk without delay.
 *
 * Detection resamples to 16 kHz, whitens every STFT frame (each bin divided by the local spectral
 * magnitude, frames weighted by how far they rise above the noise floor), folds the result onto
 * one period and correlates it circularly with each key's sync pattern: the peak over the
 * correlation's spread is the score (detected at 6 or more; unmarked speech stays near 4), its
 * position aligns the bit patterns, whose signs give the payload, accepted when its CRC-8 agrees.
 * Folding makes a crop of any offset work; gain changes do not matter (the score is a ratio).
 */
export { DEFAULT_STRENGTH_DB, WatermarkEmbedder, embedWatermark, type EmbedOptions } from './embed.js';
export { DETECTION_THRESHOLD, detectWatermark, type DetectionKey, type WatermarkMatch } from './detect.js';
export { PATTERN_RATE, PERIOD, BAND_HZ } from './pattern.js';
