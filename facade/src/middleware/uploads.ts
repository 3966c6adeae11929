/**
 * multipart/form-data for every operation that takes one: form fields into `req.body`, files
 * streamed to temporary files (never held in memory) under a size cap checked while the bytes
 * arrive. One piece for every multipart operation (reference audio, watermark detection, web
 * jobs, later slips).
 *
 * - A declared Content-Length above the cap is refused at once (413 UPLOAD_TOO_LARGE) without
 *   reading the body; a chunked body is refused as soon as the file passes the cap, and the rest
 *   of it is discarded unread so the client still receives the answer.
 * - A file field appears in `req.body` as "" (so the OpenAPI validator sees the documented field)
 *   and in `res.locals.uploads` with its temporary path.
 * - Temporary files are removed when the response ends, whatever happened (a refused upload
 *   removes its own at once).
 */
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { TtsError } from '@tts/common';

/** A file of a multipart request, on disk until the response ends. */
export interface UploadedFile {
  /** Form field it came in. */
  readonly field: string;
  /** File name the client sent (may be empty). */
  readonly filename: string;
  /** MIME type the client declared. */
  readonly mimeType: string;
  /** Temporary file. */
  readonly path: string;
  readonly sizeBytes: number;
}

/** Limits of multipart bodies. */
export interface UploadLimits {
  /** Largest file, bytes. */
  readonly maxFileBytes: number;
  /** Files per request. @default 1 */
  readonly maxFiles?: number;
  /** Largest text field, bytes. @default 64 KiB */
  readonly maxFieldBytes?: number;
  /** Text fields per request. @default 50 */
  readonly maxFields?: number;
  /** Folder of the temporary files. */
  readonly tmpDir: string;
}

/** Room for the text fields and part headers beside the file in a declared Content-Length. */
const FORM_OVERHEAD_BYTES = 256 * 1024;

const isMultipart = (req: Request): boolean => (req.headers['content-type'] ?? '').toLowerCase().startsWith('multipart/form-data');

/** The middleware; leaves other content types to the JSON and urlencoded parsers. */
export function multipartUploads(globalLimits: UploadLimits): RequestHandler {
  const maxFiles = globalLimits.maxFiles ?? 1;
  return (req: Request, res: Response, next: NextFunction): void => {
    if (!isMultipart(req)) {
      next();
      return;
    }
    const own = res.locals.uploadLimitBytes;
    const limits = own !== undefined && own < globalLimits.maxFileBytes ? { ...globalLimits, maxFileBytes: own } : globalLimits;
    const declared = Number(req.headers['content-length'] ?? NaN);
    if (Number.isFinite(declared) && declared > limits.maxFileBytes + FORM_OVERHEAD_BYTES) {
      refuse(req, next, tooLarge(limits.maxFileBytes));
      return;
    }
    parse(req, res, limits, maxFiles).then(() => next(), (err: unknown) => refuse(req, next, err));
  };
}

/** Answers with `err`; an unread body is discarded so the client can read the answer. */
function refuse(req: Request, next: NextFunction, err: unknown): void {
  if (!req.readableEnded) {
    req.unpipe();
    req.resume();
  }
  next(err);
}

const tooLarge = (max: number): TtsError => new TtsError('UPLOAD_TOO_LARGE', `The file exceeds the upload limit of ${max} bytes.`, { loc: ['body'] });

async function parse(req: Request, res: Response, limits: UploadLimits, maxFiles: number): Promise<void> {
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: req.headers,
      limits: { fileSize: limits.maxFileBytes, files: maxFiles, fields: limits.maxFields ?? 50, fieldSize: limits.maxFieldBytes ?? 64 * 1024, parts: (limits.maxFields ?? 50) + maxFiles },
    });
  } catch (err) {
    throw new TtsError('UPLOAD_MALFORMED', 'The multipart body has no boundary.', { loc: ['body'], cause: err });
  }
  const uploads: UploadedFile[] = [];
  // Registered before the first file exists, so a failure at any point still removes every file.
  res.on('close', () => void removeAll(uploads.map((u) => u.path)));
  const pending: string[] = [];
  res.on('close', () => void removeAll(pending));
  const fields: Record<string, string> = Object.create(null) as Record<string, string>;
  const writes: Promise<void>[] = [];
  let failure: TtsError | undefined;
  const fail = (err: TtsError): void => {
    failure ??= err;
  };
  await mkdir(limits.tmpDir, { recursive: true });
  await new Promise<void>((resolve) => {
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) fail(new TtsError('VALIDATION_FAILED', `The form field "${name}" is longer than the limit.`, { loc: ['body', name] }));
      else fields[name] = value;
    });
    parser.on('file', (name, stream: Readable & { truncated?: boolean }, info) => {
      if (failure) {
        stream.resume();
        return;
      }
      const file = path.join(limits.tmpDir, `upload-${randomUUID()}`);
      pending.push(file);
      let size = 0;
      stream.on('data', (chunk: Buffer) => (size += chunk.length));
      const out = createWriteStream(file, { flags: 'wx', mode: 0o600 });
      stream.on('limit', () => {
        // Past the cap: stop here, without reading the rest of the body into the parser.
        fail(tooLarge(limits.maxFileBytes));
        req.unpipe(parser);
        stream.destroy();
        out.destroy();
        resolve();
      });
      writes.push(
        pipeline(stream, out).then(
          () => {
            if (stream.truncated === true) return;
            uploads.push({ field: name, filename: info.filename ?? '', mimeType: info.mimeType, path: file, sizeBytes: size });
            fields[name] = '';
          },
          (err: unknown) => fail(new TtsError('UPLOAD_MALFORMED', 'The uploaded file could not be received.', { loc: ['body', name], cause: err })),
        ),
      );
    });
    parser.on('filesLimit', () => fail(new TtsError('UPLOAD_TOO_MANY_FILES', `The form carries more than ${maxFiles} file(s).`, { loc: ['body'] })));
    parser.on('fieldsLimit', () => fail(new TtsError('VALIDATION_FAILED', 'The form has too many fields.', { loc: ['body'] })));
    parser.on('partsLimit', () => fail(new TtsError('VALIDATION_FAILED', 'The form has too many parts.', { loc: ['body'] })));
    parser.on('error', (err: unknown) => {
      fail(new TtsError('UPLOAD_MALFORMED', undefined, { loc: ['body'], cause: err }));
      resolve();
    });
    parser.on('close', () => resolve());
    req.on('aborted', () => {
      fail(new TtsError('UPLOAD_MALFORMED', 'The client ended the upload early.', { loc: ['body'] }));
      resolve();
    });
    req.pipe(parser);
  });
  if (!failure) await Promise.all(writes);
  if (failure) {
    await removeAll(pending);
    throw failure;
  }
  req.body = fields;
  res.locals.uploads = uploads;
}

async function removeAll(files: readonly string[]): Promise<void> {
  await Promise.all(files.map((f) => rm(f, { force: true })));
}

/** The uploaded file of `field`, or a 422 naming the field when the form has none. */
export function uploadOf(res: Response, field: string): UploadedFile {
  const upload = res.locals.uploads?.find((u) => u.field === field);
  if (!upload) throw new TtsError('VALIDATION_FAILED', `The form has no file in the field "${field}".`, { loc: ['body', field] });
  if (upload.sizeBytes === 0) throw new TtsError('UPLOAD_EMPTY', `The file in "${field}" is empty.`, { loc: ['body', field] });
  return upload;
}
