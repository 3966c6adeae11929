/**
 * Piper voice files: discovery of `voice.onnx` + `voice.onnx.json` pairs on a search path, and the
 * typed, validated form of the `.onnx.json` config.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';

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

/** The `.onnx.json` fields the engine reads, as a JSON schema (Piper's own files carry more). */
const CONFIG_SCHEMA = {
  type: 'object',
  required: ['audio', 'phoneme_id_map'],
  properties: {
    audio: {
      type: 'object',
      required: ['sample_rate'],
      properties: { sample_rate: { type: 'integer', minimum: 8000, maximum: 96_000 }, quality: { type: ['string', 'null'] } },
    },
    espeak: { type: ['object', 'null'], properties: { voice: { type: ['string', 'null'] } } },
    phoneme_type: { type: ['string', 'null'], enum: ['espeak', 'text', '', null] },
    inference: {
      type: ['object', 'null'],
      properties: { noise_scale: { type: ['number', 'null'] }, length_scale: { type: ['number', 'null'] }, noise_w: { type: ['number', 'null'] } },
    },
    phoneme_id_map: {
      type: 'object',
      required: ['_', '^', '$'],
      additionalProperties: { anyOf: [{ type: 'integer', minimum: 0 }, { type: 'array', items: { type: 'integer', minimum: 0 } }] },
    },
    phoneme_map: { type: ['object', 'null'] },
    num_speakers: { type: ['integer', 'null'], minimum: 1 },
    speaker_id_map: { type: ['object', 'null'], additionalProperties: { type: 'integer', minimum: 0 } },
    language: { type: ['object', 'null'], properties: { code: { type: ['string', 'null'] } } },
    dataset: { type: ['string', 'null'] },
  },
} as const;

/** Compiled once, on first use. */
let validateConfig: ValidateFunction | undefined;

/** The first schema violation of `raw`, as "<field>: <problem>", or undefined when it conforms. */
function schemaProblem(raw: unknown): string | undefined {
  validateConfig ??= new Ajv({ allowUnionTypes: true, strict: true, strictRequired: false }).compile(CONFIG_SCHEMA);
  if (validateConfig(raw)) return undefined;
  const e = validateConfig.errors?.[0];
  if (e === undefined) return 'the config: is not valid';
  const at = e.instancePath.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~')).join('.');
  if (e.keyword === 'required') {
    const missing = String((e.params as { missingProperty: string }).missingProperty);
    return `${at === '' ? missing : `${at}.${missing}`}: ${at === '' ? 'the config' : at} lacks "${missing}"`;
  }
  return `${at === '' ? 'the config' : at}: ${e.message ?? 'is not valid'}${e.keyword === 'enum' ? ` (${JSON.stringify((e.params as { allowedValues: unknown[] }).allowedValues.filter((v) => v))})` : ''}`;
}

const objectOf = (value: unknown): Json => (typeof value === 'object' && value !== null ? (value as Json) : {});
const numberOr = (value: unknown, fallback: number): number => (typeof value === 'number' ? value : fallback);
const stringOr = (value: unknown, fallback: string): string => (typeof value === 'string' && value.trim() !== '' ? value : fallback);

/** Parses and validates a Piper voice config; `source` names the file in error messages. */
export function parsePiperConfig(raw: unknown, source: string, name: string): PiperVoiceConfig {
  const problem = schemaProblem(raw);
  if (problem !== undefined) throw new Error(`${source}: ${problem}`);
  const root = raw as Json;
  const audio = objectOf(root['audio']);
  const espeakVoice = stringOr(objectOf(root['espeak'])['voice'], 'en-us');
  const inference = objectOf(root['inference']);
  const phonemeIdMap = new Map<string, readonly number[]>();
  for (const [symbol, ids] of Object.entries(objectOf(root['phoneme_id_map']))) phonemeIdMap.set(symbol, Array.isArray(ids) ? (ids as number[]) : [ids as number]);
  const phonemeMap = new Map<string, readonly string[]>();
  for (const [from, to] of Object.entries(objectOf(root['phoneme_map']))) {
    const list = Array.isArray(to) ? to : [to];
    if (list.every((p) => typeof p === 'string')) phonemeMap.set(from, list as string[]);
  }
  const numSpeakers = numberOr(root['num_speakers'], 1);
  const speakerIdMap = new Map<string, number>();
  for (const [speaker, sid] of Object.entries(objectOf(root['speaker_id_map']))) {
    // Across fields, so beyond the schema: a speaker id names one of num_speakers.
    if ((sid as number) >= numSpeakers) throw new Error(`${source}: speaker_id_map["${speaker}"] must be an id below num_speakers`);
    speakerIdMap.set(speaker, sid as number);
  }
  return {
    sampleRate: audio['sample_rate'] as number,
    quality: stringOr(audio['quality'], 'medium'),
    espeakVoice,
    phonemeType: stringOr(root['phoneme_type'], 'espeak') as 'espeak' | 'text',
    language: toBcp47(stringOr(objectOf(root['language'])['code'], espeakVoice)),
    numSpeakers,
    speakerIdMap,
    phonemeIdMap,
    phonemeMap,
    noiseScale: numberOr(inference['noise_scale'], 0.667),
    lengthScale: numberOr(inference['length_scale'], 1),
    noiseW: numberOr(inference['noise_w'], 0.8),
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
