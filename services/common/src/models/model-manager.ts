/**
 * The model manager: the voices catalogue, the model search path (TTS_MODEL_DIR), and installing
 * catalogue voices from the model hub with resumable, verified and atomic downloads.
 *
 * Layout: a voice is installed as `<dir>/<engine>/<name>/<file>` plus `install.json` (what was
 * installed, from where, with which sha256), `<dir>` being the first directory of the search
 * path. Downloads are staged in `<dir>/.partial/<engine>--<name>/` (kept between calls, so an
 * interrupted install resumes) and the finished folder is renamed into place in one step.
 * Offline mode never touches the network: a voice that is not on disk fails with MODEL_NOT_INSTALLED.
 */
import { randomBytes } from 'node:crypto';
import { access, mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { TtsError } from '../errors/tts-error.js';
import type { Logger } from '../logging/logger.js';
import { BUILTIN_CATALOGUE, catalogueSize, type CatalogueFile, type CatalogueVoice } from './catalogue.js';
import { DEFAULT_HUB_URL, downloadFile, hubFileUrl } from './hub-client.js';

/** Options of the model manager. */
export interface ModelManagerOptions {
  /** Search path; installs go to the first directory. See parseModelDirs. */
  readonly modelDirs: readonly string[];
  /** @default BUILTIN_CATALOGUE */
  readonly catalogue?: readonly CatalogueVoice[];
  /** Hub base URL. @default "https://huggingface.co" */
  readonly hubUrl?: string;
  /** Model-hub token, sent as `Authorization: Bearer`. */
  readonly hubToken?: string | undefined;
  /** Never use the network. @default false */
  readonly offline?: boolean;
  /** Attempts per file and call. @default 4 */
  readonly maxAttempts?: number;
  /** Back-off step between attempts, ms. @default 500 */
  readonly retryDelayMs?: number;
  /** fetch implementation. @default globalThis.fetch */
  readonly fetch?: typeof fetch;
  readonly logger?: Logger;
}

/** Progress of an install. */
export interface InstallProgress {
  readonly id: string;
  /** File being downloaded (its name). */
  readonly file: string;
  readonly fileIndex: number;
  readonly fileCount: number;
  /** Bytes of all files on disk so far. */
  readonly receivedBytes: number;
  /** Sum of the catalogue sizes (unknown sizes count once known), or null. */
  readonly totalBytes: number | null;
}

/** A voice found on disk. */
export interface InstalledVoice {
  readonly id: string;
  /** Folder holding the files. */
  readonly dir: string;
  /** Absolute paths of the voice's files, in catalogue order. */
  readonly files: readonly string[];
}

/** A catalogue voice with its install state and download URLs. */
export interface CatalogueListing extends CatalogueVoice {
  readonly sizeBytes: number;
  readonly installed: InstalledVoice | null;
  /** Hub URL of each file. */
  readonly urls: readonly string[];
}

/** What `install.json` records. */
interface InstallRecord {
  readonly id: string;
  readonly engine: string;
  readonly name: string;
  readonly source: { readonly repo: string; readonly revision: string; readonly hubUrl: string };
  readonly files: readonly { readonly name: string; readonly sha256: string; readonly sizeBytes: number; readonly verified: boolean }[];
  readonly installedAt: string;
}

/**
 * Parses a model search path (TTS_MODEL_DIR): directories separated by ":" or ",", resolved to
 * absolute paths, duplicates dropped, first match wins; `fallback` when empty. The one parser of the
 * search path: the node, the model manager and `npm run models` all read it through this function.
 */
export function parseModelDirs(value: string | undefined, fallback: string): string[] {
  const dirs = (value ?? '').split(/[:,]/).map((d) => d.trim()).filter((d) => d !== '');
  const list = dirs.length === 0 ? [fallback] : dirs;
  return [...new Set(list.map((d) => path.resolve(d)))];
}

function fileName(file: CatalogueFile): string {
  return file.path.split('/').pop()!;
}

/** True when `file` exists. */
export async function exists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch {
    return false;
  }
}

/** The model manager; see the module comment. */
export class ModelManager {
  private readonly catalogue: readonly CatalogueVoice[];
  private readonly hubUrl: string;
  private readonly installing = new Map<string, Promise<InstalledVoice>>();

  constructor(private readonly options: ModelManagerOptions) {
    if (options.modelDirs.length === 0) throw new RangeError('modelDirs must name at least one directory');
    this.catalogue = options.catalogue ?? BUILTIN_CATALOGUE;
    this.hubUrl = options.hubUrl ?? DEFAULT_HUB_URL;
  }

  /** Directory installs go to. */
  get installDir(): string {
    return this.options.modelDirs[0]!;
  }

  /** True when the manager never uses the network. */
  get offline(): boolean {
    return this.options.offline === true;
  }

  /** The catalogue voice `id`, or undefined. */
  find(id: string): CatalogueVoice | undefined {
    return this.catalogue.find((v) => v.id === id);
  }

  /** Hub URLs of a voice's files. */
  urlsOf(voice: CatalogueVoice): string[] {
    return voice.files.map((f) => hubFileUrl(this.hubUrl, voice.source.repo, voice.source.revision, f.path));
  }

  /** Every catalogue voice with its install state (reads the disk, never the network). */
  async list(): Promise<CatalogueListing[]> {
    return Promise.all(this.catalogue.map(async (voice) => ({
      ...voice, sizeBytes: catalogueSize(voice), installed: await this.locate(voice.id), urls: this.urlsOf(voice),
    })));
  }

  /**
   * Finds voice `id` on the search path: in `<dir>/<engine>/<name>/` or, for files copied by hand,
   * directly in `<dir>/`. Null when not every file is there.
   */
  async locate(id: string): Promise<InstalledVoice | null> {
    const voice = this.require(id);
    for (const dir of this.options.modelDirs) {
      for (const folder of [path.join(dir, voice.engine, voice.name), dir]) {
        const files = voice.files.map((f) => path.join(folder, fileName(f)));
        if ((await Promise.all(files.map(exists))).every(Boolean)) return { id, dir: folder, files };
      }
    }
    return null;
  }

  /** The installed voice `id`; installs it first when missing (MODEL_NOT_INSTALLED when offline). */
  async ensure(id: string, options: { onProgress?: (p: InstallProgress) => void; signal?: AbortSignal } = {}): Promise<InstalledVoice> {
    return (await this.locate(id)) ?? this.install(id, options);
  }

  /**
   * Downloads voice `id` from the hub into the install directory (replacing an installed copy there
   * when `force`). Concurrent installs of the same voice share one download.
   */
  install(id: string, options: { onProgress?: (p: InstallProgress) => void; signal?: AbortSignal; force?: boolean } = {}): Promise<InstalledVoice> {
    const voice = this.find(id);
    if (voice === undefined) return Promise.reject(this.notInCatalogue(id));
    if (this.offline) {
      return Promise.reject(new TtsError('MODEL_NOT_INSTALLED', `Voice "${id}" is not installed and the model manager is offline.`));
    }
    const running = this.installing.get(id);
    if (running !== undefined) return running;
    const job = this.download(voice, options).finally(() => this.installing.delete(id));
    this.installing.set(id, job);
    return job;
  }

  private require(id: string): CatalogueVoice {
    const voice = this.find(id);
    if (voice === undefined) throw this.notInCatalogue(id);
    return voice;
  }

  private notInCatalogue(id: string): TtsError {
    return new TtsError('TTS_VOICE_NOT_FOUND', `Voice "${id}" is not in the voices catalogue.`, { loc: ['voice'] });
  }

  private async download(voice: CatalogueVoice, options: { onProgress?: (p: InstallProgress) => void; signal?: AbortSignal; force?: boolean }): Promise<InstalledVoice> {
    const finalDir = path.join(this.installDir, voice.engine, voice.name);
    if (options.force !== true && (await exists(finalDir))) {
      const found = await this.locate(voice.id);
      if (found !== null && found.dir === finalDir) return found;
    }
    const staging = path.join(this.installDir, '.partial', `${voice.engine}--${voice.name}`);
    await mkdir(staging, { recursive: true });
    const urls = this.urlsOf(voice);
    const done: number[] = voice.files.map(() => 0);
    const known = voice.files.every((f) => f.sizeBytes !== null) ? catalogueSize(voice) : null;
    const records: InstallRecord['files'][number][] = [];
    for (let i = 0; i < voice.files.length; i++) {
      const file = voice.files[i]!;
      const name = fileName(file);
      const started = performance.now();
      const result = await downloadFile({
        url: urls[i]!,
        partPath: path.join(staging, `${name}.part`),
        expectedSha256: file.sha256,
        expectedSize: file.sizeBytes,
        token: this.options.hubToken,
        maxAttempts: this.options.maxAttempts ?? 4,
        retryDelayMs: this.options.retryDelayMs ?? 500,
        signal: options.signal,
        ...(this.options.fetch ? { fetch: this.options.fetch } : {}),
        onProgress: (p) => {
          done[i] = p.receivedBytes;
          options.onProgress?.({
            id: voice.id, file: name, fileIndex: i, fileCount: voice.files.length,
            receivedBytes: done.reduce((a, b) => a + b, 0), totalBytes: known,
          });
        },
      });
      done[i] = result.sizeBytes;
      if (file.sha256 === null) this.options.logger?.warn('model file installed without a catalogue checksum', { voice: voice.id, file: name, sha256: result.sha256 });
      this.options.logger?.info('model file downloaded', {
        voice: voice.id, file: name, bytes: result.sizeBytes, resumedFrom: result.resumedFrom, attempts: result.attempts, ms: Math.round(performance.now() - started),
      });
      records.push({ name, sha256: result.sha256, sizeBytes: result.sizeBytes, verified: file.sha256 !== null });
    }
    // Everything verified: assemble the folder beside its final place, then swap it in.
    const assembling = path.join(this.installDir, voice.engine, `.tmp-${voice.name}-${randomBytes(4).toString('hex')}`);
    await mkdir(assembling, { recursive: true });
    for (const record of records) await rename(path.join(staging, `${record.name}.part`), path.join(assembling, record.name));
    const install: InstallRecord = {
      id: voice.id, engine: voice.engine, name: voice.name,
      source: { repo: voice.source.repo, revision: voice.source.revision, hubUrl: this.hubUrl },
      files: records, installedAt: new Date().toISOString(),
    };
    await writeFile(path.join(assembling, 'install.json'), `${JSON.stringify(install, null, 2)}\n`);
    let previous: string | undefined;
    if (await exists(finalDir)) {
      previous = path.join(this.installDir, voice.engine, `.old-${voice.name}-${randomBytes(4).toString('hex')}`);
      await rename(finalDir, previous);
    }
    await rename(assembling, finalDir);
    if (previous !== undefined) await rm(previous, { recursive: true, force: true });
    await rm(staging, { recursive: true, force: true });
    await this.removeEmpty(path.join(this.installDir, '.partial'));
    return { id: voice.id, dir: finalDir, files: records.map((r) => path.join(finalDir, r.name)) };
  }

  private async removeEmpty(dir: string): Promise<void> {
    try {
      if ((await readdir(dir)).length === 0) await rm(dir, { recursive: true });
    } catch {
      // Already gone or not empty: nothing to do.
    }
  }
}
