/**
 * Extracts chosen files of a gzipped tar archive (an npm package tarball) while streaming it:
 * ustar headers with their prefix field, pax `path` records and GNU long names. Only regular
 * files under the requested paths are written; nothing else of the archive touches the disk.
 */
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { createGunzip } from 'node:zlib';

/** A file written by extractTarGz. */
export interface ExtractedFile {
  /** Path inside the archive. */
  readonly archivePath: string;
  /** Where it was written. */
  readonly file: string;
  readonly sha256: string;
  readonly sizeBytes: number;
}

const BLOCK = 512;

function text(block: Buffer, start: number, length: number): string {
  const raw = block.subarray(start, start + length);
  const end = raw.indexOf(0);
  return raw.subarray(0, end === -1 ? raw.length : end).toString('utf8');
}

function octal(block: Buffer, start: number, length: number): number {
  const value = text(block, start, length).trim();
  return value === '' ? 0 : parseInt(value, 8);
}

/** The `path` of a pax extended header, if it has one. */
function paxPath(data: Buffer): string | undefined {
  let at = 0;
  while (at < data.length) {
    const space = data.indexOf(0x20, at);
    if (space === -1) break;
    const length = Number(data.subarray(at, space).toString('ascii'));
    if (!Number.isFinite(length) || length <= 0) break;
    const record = data.subarray(space + 1, at + length - 1).toString('utf8');
    const eq = record.indexOf('=');
    if (record.slice(0, eq) === 'path') return record.slice(eq + 1);
    at += length;
  }
  return undefined;
}

/**
 * Writes the archive's regular files whose path starts with `prefix` to `destDir`, at their path
 * relative to `prefix` (a `prefix` naming one file writes that file as its base name). Refuses
 * paths that would leave `destDir`.
 */
export async function extractTarGz(archive: string, prefix: string, destDir: string): Promise<ExtractedFile[]> {
  const out: ExtractedFile[] = [];
  let buffer: Buffer = Buffer.alloc(0);
  /** Bytes of the current entry's data still to come, and its padding. */
  let remaining = 0;
  let padding = 0;
  let sink: { stream: WriteStream; hash: ReturnType<typeof createHash>; entry: Omit<ExtractedFile, 'sha256'> } | undefined;
  let collect: { kind: 'pax' | 'gnu'; chunks: Buffer[] } | undefined;
  let nextName: string | undefined;
  let ended = false;

  const finishEntry = async (): Promise<void> => {
    if (sink) {
      const s = sink;
      sink = undefined;
      await new Promise<void>((resolve, reject) => s.stream.end((err?: Error | null) => (err ? reject(err) : resolve())));
      out.push({ ...s.entry, sha256: s.hash.digest('hex') });
    }
    if (collect) {
      const data = Buffer.concat(collect.chunks);
      nextName = collect.kind === 'pax' ? paxPath(data) ?? nextName : text(data, 0, data.length);
      collect = undefined;
    }
  };

  const startEntry = async (header: Buffer): Promise<void> => {
    const size = octal(header, 124, 12);
    const type = String.fromCharCode(header[156] ?? 0x30);
    const ustar = text(header, 257, 6) === 'ustar';
    const name = nextName ?? (ustar && text(header, 345, 155) !== '' ? `${text(header, 345, 155)}/${text(header, 0, 100)}` : text(header, 0, 100));
    remaining = size;
    padding = (BLOCK - (size % BLOCK)) % BLOCK;
    if (type === 'x' || type === 'L') {
      collect = { kind: type === 'x' ? 'pax' : 'gnu', chunks: [] };
      return;
    }
    nextName = undefined;
    const isFile = type === '0' || type === '\0' || type === '7';
    if (!isFile || !(name === prefix || name.startsWith(prefix.endsWith('/') ? prefix : `${prefix}/`))) return;
    const relative = name === prefix ? path.posix.basename(name) : name.slice(prefix.length).replace(/^\/+/, '');
    const target = path.resolve(destDir, relative);
    if (!target.startsWith(path.resolve(destDir) + path.sep)) throw new Error(`archive entry ${name} leaves the destination`);
    await mkdir(path.dirname(target), { recursive: true });
    sink = { stream: createWriteStream(target), hash: createHash('sha256'), entry: { archivePath: name, file: target, sizeBytes: size } };
    if (size === 0) await finishEntry();
  };

  const consume = async (): Promise<void> => {
    for (;;) {
      if (ended) return;
      if (remaining > 0) {
        if (buffer.length === 0) return;
        const take = Math.min(remaining, buffer.length);
        const piece = buffer.subarray(0, take);
        if (sink) {
          sink.hash.update(piece);
          if (!sink.stream.write(piece)) {
            const s = sink.stream;
            await new Promise<void>((resolve) => s.once('drain', () => resolve()));
          }
        } else if (collect) collect.chunks.push(Buffer.from(piece));
        buffer = buffer.subarray(take);
        remaining -= take;
        if (remaining === 0) await finishEntry();
        continue;
      }
      if (padding > 0) {
        const take = Math.min(padding, buffer.length);
        buffer = buffer.subarray(take);
        padding -= take;
        if (padding > 0) return;
        continue;
      }
      if (buffer.length < BLOCK) return;
      const header = buffer.subarray(0, BLOCK);
      buffer = buffer.subarray(BLOCK);
      if (header.every((b) => b === 0)) {
        ended = true;
        return;
      }
      await startEntry(Buffer.from(header));
    }
  };

  for await (const chunk of createReadStream(archive).pipe(createGunzip()) as AsyncIterable<Buffer>) {
    buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
    await consume();
  }
  await finishEntry();
  return out;
}
