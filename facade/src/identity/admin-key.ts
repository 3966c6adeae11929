/**
 * The administrator key (X-Admin-Key). From TTS_ADMIN_KEY when set; in embedded mode, generated on
 * the first start and kept in `${DATA_DIR}/admin-key` (mode 0600), with a flag telling the caller
 * to print it this once.
 */
import { chmod, link, mkdir, readFile, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError, sameSecret, TtsError } from '@tts/common';
import { randomString } from './crypto.js';

/** Header carrying the administrator key (lower-case, as Node exposes request headers). */
export const ADMIN_KEY_HEADER = 'x-admin-key';

/** File name of the generated key under DATA_DIR. */
export const ADMIN_KEY_FILE = 'admin-key';

/** Shortest administrator key accepted from the environment or the file. */
export const ADMIN_KEY_MIN_LENGTH = 24;

const MAX_HEADER_LENGTH = 256;

/** Where the administrator key came from. */
export interface LoadedAdminKey {
  /** The key. Print it only when `printOnce` is true; never log it otherwise. */
  readonly key: string;
  /** env: TTS_ADMIN_KEY; file: read from DATA_DIR; generated: created by this start. */
  readonly source: 'env' | 'file' | 'generated';
  /** True only on the start that generated the key: the caller prints it once. */
  readonly printOnce: boolean;
  /** The file holding the key, when it is file-based. */
  readonly path: string | undefined;
}

/** Options of `loadAdminKey`. */
export interface LoadAdminKeyOptions {
  /** The value of TTS_ADMIN_KEY, if set. Wins over the file. */
  readonly envValue?: string | undefined;
  /**
   * DATA_DIR, passed in embedded mode only: the key is read from, or generated into,
   * `${dataDir}/admin-key`. Leave it undefined with an external database, where replicas must
   * share TTS_ADMIN_KEY.
   */
  readonly dataDir?: string | undefined;
}

function checkLength(key: string, variable: string): string {
  if (key.length < ADMIN_KEY_MIN_LENGTH) throw new ConfigError(variable, `the administrator key must be at least ${ADMIN_KEY_MIN_LENGTH} characters`);
  if (key.length > MAX_HEADER_LENGTH || /\s/.test(key)) throw new ConfigError(variable, `the administrator key must be at most ${MAX_HEADER_LENGTH} characters without white space`);
  return key;
}

/**
 * Loads the administrator key: TTS_ADMIN_KEY when set; otherwise, with `dataDir`, the key file
 * (generated atomically on the first start; two processes racing both end up with the winner's
 * key). Throws ConfigError when the key is too short or when neither source is available.
 */
export async function loadAdminKey(options: LoadAdminKeyOptions): Promise<LoadedAdminKey> {
  const env = options.envValue?.trim();
  if (env !== undefined && env !== '') return { key: checkLength(env, 'TTS_ADMIN_KEY'), source: 'env', printOnce: false, path: undefined };
  if (options.dataDir === undefined) throw new ConfigError('TTS_ADMIN_KEY', 'required when DATA_DIR (embedded mode) is not used');

  await mkdir(options.dataDir, { recursive: true, mode: 0o700 });
  const path = join(options.dataDir, ADMIN_KEY_FILE);
  const generated = `tts_admin_${randomString(43)}`;
  // Write a private temporary file, then link it into place: the link either creates the complete
  // file or fails because another process's file is already there (never a half-written key).
  const temporary = `${path}.${process.pid}.${randomString(8)}.tmp`;
  await writeFile(temporary, `${generated}\n`, { mode: 0o600, flag: 'wx' });
  try {
    await link(temporary, path);
    return { key: generated, source: 'generated', printOnce: true, path };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    await unlink(temporary);
  }
  // Tighten a file someone made readable to others.
  if (((await stat(path)).mode & 0o077) !== 0) await chmod(path, 0o600);
  const key = (await readFile(path, 'utf8')).trim();
  return { key: checkLength(key, path), source: 'file', printOnce: false, path };
}

/** Checks X-Admin-Key values against the administrator key in constant time. */
export class AdminKeyVerifier {
  constructor(private readonly key: string) {}

  /**
   * Throws AUTH_ADMIN_REQUIRED (403) when the header is absent or empty, AUTH_ADMIN_KEY_INVALID
   * (401) when it does not match.
   */
  verify(header: string | undefined): void {
    if (header === undefined || header === '') throw new TtsError('AUTH_ADMIN_REQUIRED');
    if (header.length > MAX_HEADER_LENGTH || !sameSecret(header, this.key)) throw new TtsError('AUTH_ADMIN_KEY_INVALID');
  }

  /** True when the header carries the administrator key (for operations open to admins and owners). */
  matches(header: string | undefined): boolean {
    return header !== undefined && header.length <= MAX_HEADER_LENGTH && sameSecret(header, this.key);
  }
}
