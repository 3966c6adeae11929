/**
 * Receives a client-streamed upload (tts.v1.AudioUpload: a header, then the file's bytes) into a
 * temporary file, refusing more than the upload cap while the bytes arrive. The caller removes
 * the file with `remove()` in a `finally`; a refused or failed upload removes its own.
 */
import { randomUUID } from 'node:crypto';
import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { ServerReadableStream } from '@grpc/grpc-js';
import { TtsError } from '@tts/common';
import type { AudioUpload, UploadHeader } from '@tts/proto/analysis';

/** An upload on disk. */
export interface ReceivedUpload {
  readonly header: UploadHeader;
  /** Temporary file holding the bytes. */
  readonly file: string;
  readonly sizeBytes: number;
  /** Deletes the file (idempotent). */
  remove(): Promise<void>;
}

/** Options of receiveUpload. */
export interface ReceiveOptions {
  /** Largest accepted file, bytes. */
  readonly maxBytes: number;
  /** Folder for the temporary files (created when missing). */
  readonly tmpDir: string;
}

/** Reads the call's messages into a temporary file. Throws UPLOAD_TOO_LARGE, UPLOAD_EMPTY or UPLOAD_MALFORMED. */
export async function receiveUpload(call: ServerReadableStream<AudioUpload, unknown>, options: ReceiveOptions): Promise<ReceivedUpload> {
  await mkdir(options.tmpDir, { recursive: true, mode: 0o700 });
  const file = path.join(options.tmpDir, `upload-${randomUUID()}`);
  const out = createWriteStream(file, { flags: 'wx', mode: 0o600 });
  const remove = (): Promise<void> => rm(file, { force: true });
  let header: UploadHeader | undefined;
  let size = 0;
  try {
    for await (const message of call as AsyncIterable<AudioUpload>) {
      const part = message.part;
      if (part === undefined) continue;
      if (part.$case === 'header') {
        if (header !== undefined) throw new TtsError('UPLOAD_MALFORMED', 'The upload carries two headers.');
        header = part.value;
        if (header.sizeBytes > options.maxBytes) throw tooLarge(options.maxBytes);
        continue;
      }
      if (header === undefined) throw new TtsError('UPLOAD_MALFORMED', 'The upload must start with its header.');
      size += part.value.length;
      if (size > options.maxBytes) throw tooLarge(options.maxBytes);
      await write(out, part.value);
    }
    await close(out);
    if (header === undefined) throw new TtsError('UPLOAD_MALFORMED', 'The upload has no header.');
    if (size === 0) throw new TtsError('UPLOAD_EMPTY');
    return { header, file, sizeBytes: size, remove };
  } catch (error) {
    out.destroy();
    await remove();
    throw error;
  }
}

const tooLarge = (maxBytes: number): TtsError => new TtsError('UPLOAD_TOO_LARGE', `The file exceeds ${maxBytes} bytes.`);

function write(out: WriteStream, data: Uint8Array): Promise<void> {
  return new Promise((resolve, reject) => {
    out.write(data, (error) => (error ? reject(error) : resolve()));
  });
}

function close(out: WriteStream): Promise<void> {
  return new Promise((resolve, reject) => {
    out.end((error?: Error | null) => (error ? reject(error) : resolve()));
  });
}

/** The suffix of a client file name (".wav"), lower case, or "" when it has none. */
export function suffixOf(filename: string): string {
  const ext = path.extname(path.basename(filename)).toLowerCase();
  return /^\.[a-z0-9]{1,8}$/.test(ext) ? ext : '';
}
