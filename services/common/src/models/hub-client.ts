/**
 * Model hub client: Hugging Face-style file URLs (`{base}/{repo}/resolve/{revision}/{path}`) and
 * a resumable, verified download of one file. A partial file is continued with an HTTP Range
 * request (on a new attempt or a later call); the sha256 covers the whole file and is checked
 * before the caller moves it into place. The token, when set, goes in `Authorization: Bearer`
 * and is never logged.
 */
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { TtsError } from '../errors/tts-error.js';

/** The public Hugging Face hub. */
export const DEFAULT_HUB_URL = 'https://huggingface.co';

/** URL of `filePath` in `repo` at `revision` on the hub at `baseUrl`. */
export function hubFileUrl(baseUrl: string, repo: string, revision: string, filePath: string): string {
  const base = baseUrl.replace(/\/+$/, '');
  const encodedPath = filePath.split('/').map(encodeURIComponent).join('/');
  const encodedRepo = repo.split('/').map(encodeURIComponent).join('/');
  return `${base}/${encodedRepo}/resolve/${encodeURIComponent(revision)}/${encodedPath}`;
}

/** Progress of one file download. */
export interface DownloadProgress {
  /** Bytes of the file on disk so far (including a resumed part). */
  readonly receivedBytes: number;
  /** Expected size, when known from the catalogue or the response. */
  readonly totalBytes: number | null;
}

/** What to download and how. */
export interface DownloadOptions {
  readonly url: string;
  /** Partial file written (and resumed) at this path. */
  readonly partPath: string;
  readonly expectedSha256: string | null;
  readonly expectedSize: number | null;
  /** Sent as `Authorization: Bearer <token>` when set. */
  readonly token?: string | undefined;
  /** Attempts per call, resuming after a broken transfer or a 5xx. @default 4 */
  readonly maxAttempts?: number;
  /** Delay before attempt n is n x this, ms. @default 500 */
  readonly retryDelayMs?: number;
  /** Aborts the transfer (the partial file is kept). */
  readonly signal?: AbortSignal | undefined;
  readonly onProgress?: ((progress: DownloadProgress) => void) | undefined;
  /** fetch implementation. @default globalThis.fetch */
  readonly fetch?: typeof fetch;
}

/** Result of a finished download. */
export interface DownloadResult {
  readonly sha256: string;
  readonly sizeBytes: number;
  /** Bytes that were already on disk when this call started (0 for a fresh download). */
  readonly resumedFrom: number;
  readonly attempts: number;
}

/** Thrown inside an attempt for failures that must not be retried. */
class FinalError extends Error {
  constructor(readonly error: TtsError) {
    super(error.message);
  }
}

function aborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

async function sizeOf(file: string): Promise<number> {
  try {
    return (await stat(file)).size;
  } catch {
    return 0;
  }
}

async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(file), hash);
  return hash.digest('hex');
}

/**
 * Downloads `url` into `partPath`, resuming a partial file, and verifies size and sha256. Rejects
 * with TtsError MODEL_HUB_UNAUTHORIZED (401/403), MODEL_CHECKSUM_MISMATCH (the part file is then
 * deleted) or MODEL_DOWNLOAD_FAILED (other HTTP errors, or a transfer still broken after the
 * last attempt; the part file is kept for the next call).
 */
export async function downloadFile(options: DownloadOptions): Promise<DownloadResult> {
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const maxAttempts = options.maxAttempts ?? 4;
  const resumedFrom = await sizeOf(options.partPath);
  let lastError: unknown;
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    if (aborted(options.signal)) throw new TtsError('TTS_CANCELLED', 'The download was cancelled.');
    try {
      await attemptDownload(fetchImpl, options);
      return { ...(await verify(options)), resumedFrom, attempts: attempt };
    } catch (error) {
      if (error instanceof FinalError) throw error.error;
      if (aborted(options.signal)) throw new TtsError('TTS_CANCELLED', 'The download was cancelled.');
      lastError = error;
      if (attempt < maxAttempts) await sleep((options.retryDelayMs ?? 500) * attempt);
    }
  }
  const reason = lastError instanceof Error ? lastError.message : String(lastError);
  throw new TtsError('MODEL_DOWNLOAD_FAILED', `Downloading ${options.url} failed after ${maxAttempts} attempts: ${reason}`, { cause: lastError, retryAfterSec: 5 });
}

async function attemptDownload(fetchImpl: typeof fetch, options: DownloadOptions): Promise<void> {
  let offset = await sizeOf(options.partPath);
  if (options.expectedSize !== null && offset === options.expectedSize) return; // complete: verify only
  if (options.expectedSize !== null && offset > options.expectedSize) {
    await rm(options.partPath, { force: true });
    offset = 0;
  }
  const headers: Record<string, string> = { 'user-agent': 'tts-platform-model-manager' };
  if (options.token !== undefined && options.token !== '') headers['authorization'] = `Bearer ${options.token}`;
  if (offset > 0) headers['range'] = `bytes=${offset}-`;
  const response = await fetchImpl(options.url, { headers, redirect: 'follow', ...(options.signal ? { signal: options.signal } : {}) });
  if (response.status === 401 || response.status === 403) {
    await response.body?.cancel();
    throw new FinalError(new TtsError('MODEL_HUB_UNAUTHORIZED', `The model hub answered ${response.status} for ${options.url}${options.token ? ' (the token was sent)' : ' (no token is set)'}.`));
  }
  if (response.status === 416 && offset > 0) {
    // Range not satisfiable: the part is complete or longer than the file; verify decides.
    await response.body?.cancel();
    if (options.expectedSize === null) return;
    await rm(options.partPath, { force: true });
    throw new Error('the server refused the resume range; starting over');
  }
  if (response.status === 404) {
    await response.body?.cancel();
    throw new FinalError(new TtsError('MODEL_DOWNLOAD_FAILED', `The model hub has no file at ${options.url} (404).`));
  }
  if (response.status !== 200 && response.status !== 206) {
    await response.body?.cancel();
    const error = new Error(`HTTP ${response.status}`);
    if (response.status >= 500 || response.status === 429) throw error;
    throw new FinalError(new TtsError('MODEL_DOWNLOAD_FAILED', `The model hub answered ${response.status} for ${options.url}.`, { cause: error }));
  }
  let append = false;
  if (response.status === 206) {
    const start = /^bytes (\d+)-/.exec(response.headers.get('content-range') ?? '')?.[1];
    if (start === undefined || Number(start) !== offset) {
      await response.body?.cancel();
      await rm(options.partPath, { force: true });
      throw new Error(`the server resumed at byte ${start ?? '?'} instead of ${offset}; starting over`);
    }
    append = true;
  } else {
    offset = 0; // 200: the server sent the whole file
  }
  const length = Number(response.headers.get('content-length') ?? NaN);
  const totalBytes = options.expectedSize ?? (Number.isFinite(length) ? offset + length : null);
  if (response.body === null) throw new Error('the response has no body');
  let received = offset;
  const body = Readable.fromWeb(response.body as WebReadableStream<Uint8Array>);
  body.on('data', (chunk: Buffer) => {
    received += chunk.length;
    options.onProgress?.({ receivedBytes: received, totalBytes });
  });
  await pipeline(body, createWriteStream(options.partPath, { flags: append ? 'a' : 'w' }));
  if (Number.isFinite(length) && received - offset < length) throw new Error(`the transfer stopped after ${received} bytes`);
}

async function verify(options: DownloadOptions): Promise<{ sha256: string; sizeBytes: number }> {
  const sizeBytes = await sizeOf(options.partPath);
  if (options.expectedSize !== null && sizeBytes !== options.expectedSize) {
    if (sizeBytes < options.expectedSize) throw new Error(`the file has ${sizeBytes} of ${options.expectedSize} bytes`);
    await rm(options.partPath, { force: true });
    throw new FinalError(new TtsError('MODEL_CHECKSUM_MISMATCH', `${options.url} has ${sizeBytes} bytes, the catalogue says ${options.expectedSize}.`));
  }
  const sha256 = await sha256Of(options.partPath);
  if (options.expectedSha256 !== null && sha256 !== options.expectedSha256) {
    await rm(options.partPath, { force: true });
    throw new FinalError(new TtsError('MODEL_CHECKSUM_MISMATCH', `${options.url} has sha256 ${sha256}, the catalogue says ${options.expectedSha256}.`));
  }
  return { sha256, sizeBytes };
}
