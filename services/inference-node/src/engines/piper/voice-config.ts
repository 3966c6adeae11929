/**
 * Piper voice files: discovery of `voice.onnx` + `voice.onnx.json` pairs on a search path, and the
 * typed, validated form of the `.onnx.json` config.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

/** The parts of a Piper `.onnx.json` the engine uses. */
export interface PiperVoiceConfig {
  /** `audio.sample_rate`. */
  readonly sampleRate: number;
  /** `audio.quality` as published ("x_low", "low", "medium", "high"). */
  readonly quality: string;
  /** `espeak.voice`, e.g. "en-us". */
  readonly espeakVoice: string;
  /** "espeak" (IPA from espeak-ng) or "text" (code points of the text itself). */
  readonly phonemeType: 'espeak' | 'text';
  /** BCP-47 tag from `language.code` ("en_US" -> "en-US"), else from the espeak voice. */
  readonly language: string;
  readonly numSpeakers: number;
  /** Speaker name -> sid; empty for single-speaker voices. */
  readonly speakerIdMap: ReadonlyMap<string, number>;
  readonly phonemeIdMap: ReadonlyMap<string, readonly number[]>;
  /** `phoneme_map`: phoneme -> replacement phonemes (applied before the id map). */
  readonly phonemeMap: ReadonlyMap<string, readonly string[]>;
  readonly noiseScale: number;
  readonly lengthScale: number;
  readonly noiseW: number;
  /** `dataset`, or the voice name. */
  readonly dataset: string;
}

/** A voice found on disk. */
export interface PiperVoiceFiles {
  /** File name without `.onnx`, e.g. "en_US-lessac-medium". */
  readonly name: string;
  readonly onnxPath: string;
  readonly configPath: string;
}

type Json = Record<string, unknown>;

function object(value: unknown, where: string): Json {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`${where} must be an object`);
  return value as Json;
}

function optionalObject(value: unknown, where: string): Json {
  return value === undefined || value === null ? {} : object(value, where);
}

function numberOr(value: unknown, fallback: number, where: string): number {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new Error(`${where} must be a number`);
  return value;
}

function stringOr(value: unknown, fallback: string): string {
  return typeof value === 'string' && value.trim() !== '' ? value : fallback;
}

/** Parses and validates a Piper voice config; `source` names the file in error messages. */
export function parsePiperConfig(raw: unknown, source: string, name: string): PiperVoiceConfig {
  const where = (field: string): string => `${source}: ${field}`;
  const root = object(raw, where('the config'));
  const audio = object(root['audio'], where('audio'));
  const sampleRate = numberOr(audio['sample_rate'], NaN, where('audio.sample_rate'));
  if (!Number.isInteger(sampleRate) || sampleRate < 8000 || sampleRate > 96_000) throw new Error(`${where('audio.sample_rate')} must be an integer rate in Hz`);
  const espeak = optionalObject(root['espeak'], where('espeak'));
  const espeakVoice = stringOr(espeak['voice'], 'en-us');
  const phonemeTypeRaw = stringOr(root['phoneme_type'], 'espeak');
  if (phonemeTypeRaw !== 'espeak' && phonemeTypeRaw !== 'text') throw new Error(`${where('phoneme_type')} "${phonemeTypeRaw}" is not supported (espeak or text)`);
  const inference = optionalObject(root['inference'], where('inference'));

  const idMapRaw = object(root['phoneme_id_map'], where('phoneme_id_map'));
  const phonemeIdMap = new Map<string, readonly number[]>();
  for (const [symbol, ids] of Object.entries(idMapRaw)) {
    const list = Array.isArray(ids) ? ids : [ids];
    if (!list.every((id) => Number.isInteger(id) && (id as number) >= 0)) throw new Error(`${where(`phoneme_id_map["${symbol}"]`)} must hold non-negative integers`);
    phonemeIdMap.set(symbol, list as number[]);
  }
  for (const symbol of ['_', '^', '$']) {
    if (!phonemeIdMap.has(symbol)) throw new Error(`${where('phoneme_id_map')} lacks "${symbol}"`);
  }
  const phonemeMap = new Map<string, readonly string[]>();
  for (const [from, to] of Object.entries(optionalObject(root['phoneme_map'], where('phoneme_map')))) {
    const list = Array.isArray(to) ? to : [to];
    if (list.every((p) => typeof p === 'string')) phonemeMap.set(from, list as string[]);
  }

  const numSpeakers = numberOr(root['num_speakers'], 1, where('num_speakers'));
  if (!Number.isInteger(numSpeakers) || numSpeakers < 1) throw new Error(`${where('num_speakers')} must be a positive integer`);
  const speakerIdMap = new Map<string, number>();
  for (const [speaker, sid] of Object.entries(optionalObject(root['speaker_id_map'], where('speaker_id_map')))) {
    if (!Number.isInteger(sid) || (sid as number) < 0 || (sid as number) >= numSpeakers) throw new Error(`${where(`speaker_id_map["${speaker}"]`)} must be an id below num_speakers`);
    speakerIdMap.set(speaker, sid as number);
  }

  const language = optionalObject(root['language'], where('language'));
  const code = stringOr(language['code'], espeakVoice);
  return {
    sampleRate,
    quality: stringOr(audio['quality'], 'medium'),
    espeakVoice,
    phonemeType: phonemeTypeRaw,
    language: toBcp47(code),
    numSpeakers,
    speakerIdMap,
    phonemeIdMap,
    phonemeMap,
    noiseScale: numberOr(inference['noise_scale'], 0.667, where('inference.noise_scale')),
    lengthScale: numberOr(inference['length_scale'], 1, where('inference.length_scale')),
    noiseW: numberOr(inference['noise_w'], 0.8, where('inference.noise_w')),
    dataset: stringOr(root['dataset'], name),
  };
}

/** "en_US" / "en-us" -> "en-US"; other shapes pass through with `_` as `-`. */
export function toBcp47(code: string): string {
  const parts = code.replace(/_/g, '-').split('-');
  const [lang, region, ...rest] = parts;
  if (lang === undefined) return code;
  if (region !== undefined && /^[a-z]{2}$/i.test(region)) return [lang.toLowerCase(), region.toUpperCase(), ...rest].join('-');
  return [lang.toLowerCase(), ...(region === undefined ? [] : [region]), ...rest].join('-');
}

/** Reads and parses the config of `voice`. */
export async function readPiperConfig(voice: PiperVoiceFiles): Promise<PiperVoiceConfig> {
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(voice.configPath, 'utf8'));
  } catch (error) {
    throw new Error(`${voice.configPath}: cannot read the voice config: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  return parsePiperConfig(raw, voice.configPath, voice.name);
}

/**
 * Finds Piper voices in `dirs` and their subfolders (two levels, as the model manager installs
 * them): every `X.onnx` with an `X.onnx.json` beside it. A name found in an earlier directory hides
 * the same name in later ones. Missing directories are skipped.
 */
export async function findPiperVoices(dirs: readonly string[]): Promise<PiperVoiceFiles[]> {
  const found = new Map<string, PiperVoiceFiles>();
  const visit = async (dir: string, depth: number): Promise<void> => {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => a.name.localeCompare(b.name));
    const names = new Set(entries.map((e) => e.name));
    for (const entry of entries) {
      if (entry.isFile() && entry.name.endsWith('.onnx') && names.has(`${entry.name}.json`)) {
        const name = entry.name.slice(0, -'.onnx'.length);
        if (!found.has(name)) found.set(name, { name, onnxPath: path.join(dir, entry.name), configPath: path.join(dir, `${entry.name}.json`) });
      }
    }
    if (depth === 0) return;
    for (const entry of entries) {
      if (entry.isDirectory() && !entry.name.startsWith('.')) await visit(path.join(dir, entry.name), depth - 1);
    }
  };
  for (const dir of dirs) await visit(dir, 2);
  return [...found.values()];
}
