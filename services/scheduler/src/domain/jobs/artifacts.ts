/**
 * Audio artifacts of completed jobs, content-addressed under DATA_DIR/artifacts/<sha256>.<ext>.
 * A file is written to a temporary name and renamed into place, so a reader never sees a partial
 * file, and the same audio stored twice (a job finished twice) is one file.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, type ReadStream } from 'node:fs';
import { mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { TtsError } from '@tts/common';

/** Where an artifact was stored. */
export interface StoredArtifact {
  /** Hex SHA-256 of the bytes. */
  readonly sha256: string;
  /** Path relative to the data directory, e.g. "artifacts/<sha256>.wav". */
  readonly path: string;
  readonly bytes: number;
}

const RELATIVE_PATH = /^artifacts\/[0-9a-f]{64}\.[a-z0-9]{1,8}$/;

/** The artifact store of one data directory. */
export class ArtifactStore {
  private readonly root: string;

  constructor(dataDir: string) {
    this.root = resolve(dataDir);
  }

  /**
   * Stores `audio` as `<sha256>.<extension>`; returns at once when the same content is already
   * there. A full disk is JOB_STORAGE_FULL (retryable: the job is retried, then fails with it).
   */
  async save(audio: Uint8Array, extension: string): Promise<StoredArtifact> {
    if (!/^[a-z0-9]{1,8}$/.test(extension)) throw new RangeError(`Invalid artifact extension "${extension}"`);
    const sha256 = createHash('sha256').update(audio).digest('hex');
    const path = `artifacts/${sha256}.${extension}`;
    const absolute = join(this.root, path);
    const existing = await stat(absolute).catch(() => undefined);
    if (existing?.size === audio.length) return { sha256, path, bytes: audio.length };
    await mkdir(join(this.root, 'artifacts'), { recursive: true, mode: 0o700 });
    const temporary = `${absolute}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      await writeFile(temporary, audio, { flush: true, mode: 0o600 });
      await rename(temporary, absolute);
    } catch (err) {
      await rm(temporary, { force: true });
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOSPC' || code === 'EDQUOT') throw new TtsError('JOB_STORAGE_FULL', undefined, { cause: err });
      throw err;
    }
    return { sha256, path, bytes: audio.length };
  }

  /** Size of a stored artifact, or undefined when the file is gone. */
  async size(path: string): Promise<number | undefined> {
    return (await stat(this.absolute(path)).catch(() => undefined))?.size;
  }

  /** Opens a stored artifact for reading (64 KiB chunks). */
  open(path: string): ReadStream {
    return createReadStream(this.absolute(path), { highWaterMark: 64 * 1024 });
  }

  private absolute(path: string): string {
    // Paths come from the job table, written by save(); the check keeps a bad row from reading elsewhere.
    if (!RELATIVE_PATH.test(path)) throw new RangeError(`Invalid artifact path "${path}"`);
    return join(this.root, path);
  }
}
