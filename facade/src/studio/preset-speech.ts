/**
 * A preset as the voice setup of a synthesis request (`preset_id` on POST /api/tts and the web job
 * form): the preset fills what the request leaves out (voice, engine, speed, format; on POST
 * /api/tts also its stored reference clip, so `mode` auto or clone speaks like it, with consent);
 * what the request names wins. Only the preset's owner can use it: another user's preset, or any
 * preset without a studio session, is refused before anything is synthesized.
 */
import { TtsError } from '@tts/common';
import type { Schema } from '../handler-context.js';
import type { Caller } from '../middleware/access.js';
import type { StudioPresets } from './presets.js';
import type { StudioPreset } from '../data/index.js';

/** The caller's preset `presetId`; throws STUDIO_SESSION_MISSING (401) or STUDIO_PRESET_NOT_FOUND (404). */
async function presetOf(caller: Caller, presets: StudioPresets, presetId: string): Promise<StudioPreset> {
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

/** A TtsRequest with its preset's fields filled in (the body itself when it names no preset). */
export async function ttsBodyWithPreset(body: Schema<'TtsRequest'>, caller: Caller, presets: StudioPresets): Promise<Schema<'TtsRequest'>> {
  if (body.preset_id === undefined) return body;
  const p = await presetOf(caller, presets, body.preset_id);
  const filled: Schema<'TtsRequest'> = { ...body };
  // A voice named in the request brings its own engine; an engine named in the request keeps the
  // preset's voice only when that voice is of this engine.
  if (filled.voice === undefined && filled.engine === undefined) {
    if (p.voice !== null) filled.voice = p.voice;
    if (p.engine !== null) filled.engine = p.engine;
  } else if (filled.voice === undefined && p.voice !== null && p.voice.startsWith(`${filled.engine}:`)) {
    filled.voice = p.voice;
  }
  if (filled.speed === undefined && p.speed !== null) filled.speed = p.speed;
  if (filled.format === undefined && p.format !== null) filled.format = p.format as Schema<'TtsRequest'>['format'];
  if (filled.reference_id === undefined && p.referenceId !== null && filled.mode !== 'preset') filled.reference_id = p.referenceId;
  return filled;
}

/** A web job form with its preset's voice filled in, and the preset's speed (the form has none). */
export async function webFormWithPreset(form: Schema<'WebJobForm'>, caller: Caller, presets: StudioPresets): Promise<{ form: Schema<'WebJobForm'>; speed: number | undefined }> {
  if (form.preset_id === undefined || form.preset_id === '') return { form, speed: undefined };
  const p = await presetOf(caller, presets, form.preset_id);
  return { form: { ...form, ...(form.voice === undefined && p.voice !== null ? { voice: p.voice } : {}) }, speed: p.speed ?? undefined };
}
