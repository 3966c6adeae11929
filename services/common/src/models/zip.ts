/**
 * Extracts chosen files of a zip archive (a model hub's download), read from its central
 * directory: stored and deflated entries, no ZIP64 (model archives stay far below 4 GiB).
 */
import { createHash } from 'node:crypto';
import { mkdir, open, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { inflateRawSync } from 'node:zlib';
import type { ExtractedFile } from './tar.js';

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

/**
 * Writes the archive's files whose path starts with `prefix` to `destDir`, at their path relative
 * to `prefix`. Refuses paths that would leave `destDir`, and entries it cannot read.
 */
export async function extractZip(archive: string, prefix: string, destDir: string): Promise<ExtractedFile[]> {
  const file = await open(archive, 'r');
  try {
    const size = (await file.stat()).size;
    const tailLength = Math.min(size, 65_557);
    const tail = Buffer.alloc(tailLength);
    await file.read(tail, 0, tailLength, size - tailLength);
    let eocd = -1;
    for (let i = tailLength - 22; i >= 0; i--) {
      if (tail.readUInt32LE(i) === EOCD) {
        eocd = i;
        break;
      }
    }
    if (eocd < 0) throw new Error('not a zip archive (no end of central directory)');
    const entries = tail.readUInt16LE(eocd + 10);
    const cdSize = tail.readUInt32LE(eocd + 12);
    const cdOffset = tail.readUInt32LE(eocd + 16);
    const cd = Buffer.alloc(cdSize);
    await file.read(cd, 0, cdSize, cdOffset);
    const out: ExtractedFile[] = [];
    let at = 0;
    for (let n = 0; n < entries; n++) {
      if (cd.readUInt32LE(at) !== CENTRAL) throw new Error('corrupt zip central directory');
      const method = cd.readUInt16LE(at + 10);
      const compressed = cd.readUInt32LE(at + 20);
      const uncompressed = cd.readUInt32LE(at + 24);
      const nameLength = cd.readUInt16LE(at + 28);
      const extraLength = cd.readUInt16LE(at + 30);
      const commentLength = cd.readUInt16LE(at + 32);
      const localOffset = cd.readUInt32LE(at + 42);
      const name = cd.subarray(at + 46, at + 46 + nameLength).toString('utf8');
      at += 46 + nameLength + extraLength + commentLength;
      const dir = prefix.endsWith('/') ? prefix : `${prefix}/`;
      if (name.endsWith('/') || !(name === prefix || name.startsWith(dir))) continue;
      const local = Buffer.alloc(30);
      await file.read(local, 0, 30, localOffset);
      if (local.readUInt32LE(0) !== LOCAL) throw new Error(`corrupt zip entry ${name}`);
      const dataStart = localOffset + 30 + local.readUInt16LE(26) + local.readUInt16LE(28);
      const raw = Buffer.alloc(compressed);
      await file.read(raw, 0, compressed, dataStart);
      const data = method === 0 ? raw : method === 8 ? inflateRawSync(raw) : undefined;
      if (!data || data.length !== uncompressed) throw new Error(`zip entry ${name} uses an unsupported method or is corrupt`);
      const relative = name === prefix ? path.posix.basename(name) : name.slice(dir.length);
      const target = path.resolve(destDir, relative);
      if (!target.startsWith(path.resolve(destDir) + path.sep)) throw new Error(`archive entry ${name} leaves the destination`);
      await mkdir(path.dirname(target), { recursive: true });
      await writeFile(target, data);
      out.push({ archivePath: name, file: target, sha256: createHash('sha256').update(data).digest('hex'), sizeBytes: data.length });
    }
    return out;
  } finally {
    await file.close();
  }
}
