/**
 * A preset as the voice setup of a speech request (`preset_id` on POST /api/tts and the web job
 * form): the preset fills what the request leaves out, among the settings the operation lets it
 * supply (on POST /api/tts voice, engine, speed, format and its stored reference clip, so `mode`
 * auto or clone speaks like it, with consent; on the web form voice and speed); what the request
 * names wins. Only the preset's owner can use it: another user's preset, or any preset without a
 * studio session, is refused before anything is synthesized.
 */
import { TtsError } from '@tts/common';
import type { AudioFormat } from '@tts/common/audio';
import type { Caller } from '../middleware/access.js';
import type { StudioPresets } from './presets.js';
import type { StudioPreset } from '../data/index.js';
import type { SpeechSettings } from '../speech/speech-request.js';

/** The caller's preset `presetId`; throws STUDIO_SESSION_MISSING (401) or STUDIO_PRESET_NOT_FOUND (404). */
async function presetOf(caller: Caller, presets: Pick<StudioPresets, 'get'>, presetId: string): Promise<StudioPreset> {
  if (caller.method !== 'studio') {
    throw new TtsError('STUDIO_SESSION_MISSING', 'preset_id names a studio preset: send the studio session in X-Studio-Token.', { loc: ['body', 'preset_id'] });
  }
  try {
    return await presets.get(caller.principal, presetId);
  } catch (err) {
    if (err instanceof TtsError && err.code === 'STUDIO_PRESET_NOT_FOUND') throw new TtsError('STUDIO_PRESET_NOT_FOUND', undefined, { loc: ['body', 'preset_id'] });
    throw err;
  }
}

/** The settings with their preset's filled in (the settings themselves when they name no preset). Throws as `presetOf`. */
export async function withPreset(settings: SpeechSettings, caller: Caller, presets: Pick<StudioPresets, 'get'>): Promise<SpeechSettings> {
  if (settings.preset === undefined) return settings;
  const p = await presetOf(caller, presets, settings.preset.id);
  const supplies = new Set(settings.preset.supplies);
  const filled = { ...settings };
  // A voice named in the request brings its own engine; an engine named in the request keeps the
  // preset's voice only when that voice is of this engine.
  if (filled.voice === undefined && filled.engine === undefined) {
    if (supplies.has('voice') && p.voice !== null) filled.voice = p.voice;
    if (supplies.has('engine') && p.engine !== null) filled.engine = p.engine;
  } else if (supplies.has('voice') && filled.voice === undefined && p.voice !== null && p.voice.startsWith(`${filled.engine}:`)) {
    filled.voice = p.voice;
  }
  if (supplies.has('speed') && filled.speed === undefined && p.speed !== null) filled.speed = p.speed;
  if (supplies.has('format') && filled.format === undefined && p.format !== null) filled.format = p.format as AudioFormat;
  if (supplies.has('reference') && filled.referenceId === undefined && p.referenceId !== null && filled.mode !== 'preset') filled.referenceId = p.referenceId;
  return filled;
}
