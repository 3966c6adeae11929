/**
 * The voices catalogue: which downloadable voices exist, where on the model hub their files live
 * and the size and sha256 each file must have. The built-in catalogue lists the voices whose
 * checksums the project has verified; operators extend it with a JSON file of the same shape.
 */
import { readFile } from 'node:fs/promises';

/** One file of a catalogue voice. */
export interface CatalogueFile {
  /** Path inside the hub repository, e.g. "en/en_US/lessac/medium/en_US-lessac-medium.onnx". */
  readonly path: string;
  /** Size in bytes; null when unknown. */
  readonly sizeBytes: number | null;
  /** Lower-case hex sha256; null when unknown (the file is then installed unverified, with a warning). */
  readonly sha256: string | null;
}

/** A downloadable voice. */
export interface CatalogueVoice {
  /** Voice id as the engine lists it once installed, e.g. "piper:en_US-lessac-medium". */
  readonly id: string;
  /** Engine that loads it, e.g. "piper". */
  readonly engine: string;
  /** Name inside the engine (the install folder name), e.g. "en_US-lessac-medium". */
  readonly name: string;
  /** BCP-47 language tag. */
  readonly language: string;
  readonly quality: 'low' | 'medium' | 'high';
  /** Hub repository ("owner/name") and revision (tag, branch or commit) holding the files. */
  readonly source: { readonly repo: string; readonly revision: string };
  readonly files: readonly CatalogueFile[];
  readonly license?: string;
}

/** Total size of a voice's files in bytes (unknown sizes count as 0). */
export function catalogueSize(voice: CatalogueVoice): number {
  return voice.files.reduce((n, f) => n + (f.sizeBytes ?? 0), 0);
}

/**
 * Voices the project ships in its catalogue. Only checksums verified by the project are listed:
 * the `.onnx.json` of lessac-medium has no published sha256 the project could check offline, so it
 * is installed unverified (it is small, and the engine validates it when loading).
 */
export const BUILTIN_CATALOGUE: readonly CatalogueVoice[] = Object.freeze([
  {
    id: 'piper:en_US-lessac-medium',
    engine: 'piper',
    name: 'en_US-lessac-medium',
    language: 'en-US',
    quality: 'medium',
    source: { repo: 'rhasspy/piper-voices', revision: 'v1.0.0' },
    files: [
      { path: 'en/en_US/lessac/medium/en_US-lessac-medium.onnx', sizeBytes: 63_201_294, sha256: '5efe09e69902187827af646e1a6e9d269dee769f9877d17b16b1b46eeaaf019f' },
      { path: 'en/en_US/lessac/medium/en_US-lessac-medium.onnx.json', sizeBytes: null, sha256: null },
    ],
    license: 'See the voice MODEL_CARD in the hub repository',
  },
]);

const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.\-]*$/;

function fail(source: string, message: string): never {
  throw new Error(`${source}: ${message}`);
}

/**
 * Validates catalogue JSON (an array of voices, or `{ "voices": [...] }`); `source` names the
 * origin in error messages. Names, engines and file names must be plain (no path separators).
 */
export function parseCatalogue(raw: unknown, source: string): CatalogueVoice[] {
  const list = Array.isArray(raw) ? raw : (raw as { voices?: unknown } | null)?.voices;
  if (!Array.isArray(list)) fail(source, 'expected an array of voices or { "voices": [...] }');
  return list.map((item: unknown, i): CatalogueVoice => {
    const at = `${source}[${i}]`;
    if (typeof item !== 'object' || item === null) fail(at, 'must be an object');
    const v = item as Record<string, unknown>;
    const str = (key: string): string => {
      const value = v[key];
      if (typeof value !== 'string' || value.trim() === '') fail(at, `"${key}" must be a non-empty string`);
      return value;
    };
    const engine = str('engine');
    const name = str('name');
    if (!SAFE_NAME.test(engine) || !SAFE_NAME.test(name)) fail(at, '"engine" and "name" may hold only letters, digits, "_", "-", "."');
    const quality = str('quality');
    if (quality !== 'low' && quality !== 'medium' && quality !== 'high') fail(at, '"quality" must be low, medium or high');
    const src = v['source'] as Record<string, unknown> | undefined;
    if (typeof src?.['repo'] !== 'string' || typeof src['revision'] !== 'string') fail(at, '"source" must be { "repo": string, "revision": string }');
    const files = v['files'];
    if (!Array.isArray(files) || files.length === 0) fail(at, '"files" must be a non-empty array');
    return {
      id: typeof v['id'] === 'string' ? v['id'] : `${engine}:${name}`,
      engine,
      name,
      language: str('language'),
      quality,
      source: { repo: src['repo'], revision: src['revision'] },
      files: files.map((f: unknown, j): CatalogueFile => {
        const file = f as Record<string, unknown> | null;
        const where = `${at}.files[${j}]`;
        if (typeof file?.['path'] !== 'string' || file['path'] === '') fail(where, '"path" must be a string');
        const base = file['path'].split('/').pop() ?? '';
        if (!SAFE_NAME.test(base)) fail(where, `file name "${base}" is not a plain file name`);
        const sha = file['sha256'] ?? null;
        if (sha !== null && (typeof sha !== 'string' || !/^[0-9a-f]{64}$/i.test(sha))) fail(where, '"sha256" must be 64 hex digits or null');
        const size = file['sizeBytes'] ?? null;
        if (size !== null && (!Number.isInteger(size) || (size as number) < 0)) fail(where, '"sizeBytes" must be a non-negative integer or null');
        return { path: file['path'], sha256: sha === null ? null : sha.toLowerCase(), sizeBytes: size as number | null };
      }),
      ...(typeof v['license'] === 'string' ? { license: v['license'] } : {}),
    };
  });
}

/** Reads a catalogue JSON file (see parseCatalogue). */
export async function readCatalogueFile(filePath: string): Promise<CatalogueVoice[]> {
  return parseCatalogue(JSON.parse(await readFile(filePath, 'utf8')), filePath);
}

/** `base` plus `extra`; an extra voice replaces a base voice with the same id. */
export function mergeCatalogues(base: readonly CatalogueVoice[], extra: readonly CatalogueVoice[]): CatalogueVoice[] {
  const byId = new Map(base.map((v) => [v.id, v]));
  for (const v of extra) byId.set(v.id, v);
  return [...byId.values()];
}
