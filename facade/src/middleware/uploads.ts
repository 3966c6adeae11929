/**
 * multipart/form-data of the operations that document one (middleware/bodies.ts calls it with the
 * operation's limits): form fields into `req.body`, files streamed to temporary files (never held
 * in memory) under size caps checked while the bytes arrive.
 *
 * - A declared Content-Length above the whole form's cap is refused at once (413) without reading
 *   the body; a chunked body is refused as soon as a file passes its cap (413 UPLOAD_TOO_LARGE) or
 *   the body passes the form's (413 REQUEST_BODY_TOO_LARGE), and the rest of it is discarded
 *   unread so the client still receives the answer.
 * - A file beyond the operation's count (a form of text fields takes none) answers 422
 *   UPLOAD_TOO_MANY_FILES, too many fields or parts 413 REQUEST_BODY_TOO_LARGE, a field over its
 *   size 422 VALIDATION_FAILED, all as soon as they arrive.
 * - A file field appears in `req.body` as "" (so the OpenAPI validator sees the documented field)
 *   and in `res.locals.uploads` with its temporary path.
 * - Temporary files are removed when the response ends, whatever happened (a refused upload
 *   removes its own at once).
 */
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import type { NextFunction, Request, Response } from 'express';
import { TtsError } from '@tts/common';
import { watchBodyPace, type BodyRate } from './body-rate.js';

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

/** Limits of one operation's multipart bodies. */
export interface UploadLimits {
  /** Largest file, bytes. */
  readonly maxFileBytes: number;
  /** Files per request (0: a form of text fields only). */
  readonly maxFiles: number;
  /** Largest whole body (files, fields, part headers), bytes. */
  readonly maxBodyBytes: number;
  /** Largest text field, bytes. @default 64 KiB */
  readonly maxFieldBytes?: number;
  /** Text fields per request. @default 50 */
  readonly maxFields?: number;
  /** Folder of the temporary files. */
  readonly tmpDir: string;
  /** The minimum rate the body is read at; undefined = none. */
  readonly rate?: BodyRate;
}

/** Answers with `err`; an unread body is discarded (never buffered) so the client can read the answer. */
export function refuseBody(req: Request, next: NextFunction, err: unknown): void {
  if (!req.readableEnded) {
    req.unpipe();
    req.resume();
  }
  next(err);
}

const fileTooLarge = (max: number): TtsError => new TtsError('UPLOAD_TOO_LARGE', `The file exceeds the upload limit of ${max} bytes.`, { loc: ['body'] });
const bodyTooLarge = (max: number): TtsError => new TtsError('REQUEST_BODY_TOO_LARGE', `The form exceeds the limit of ${max} bytes.`, { loc: ['body'] });

/** Passes the body through, failing once more than `max` bytes went by. */
class ByteCap extends Transform {
  private seen = 0;

  constructor(
    private readonly max: number,
    private readonly onOver: () => void,
    private readonly onBytes: (bytes: number) => void,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.seen += chunk.length;
    this.onBytes(chunk.length);
    if (this.seen > this.max) {
      this.onOver();
      callback();
      return;
    }
    callback(null, chunk);
  }
}

/**
 * Parses the multipart body of `req` under `limits` into `req.body` and `res.locals.uploads`;
 * rejects with a TtsError (the caller answers it through `refuseBody`).
 */
export async function parseMultipart(req: Request, res: Response, limits: UploadLimits): Promise<void> {
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (Number.isFinite(declared) && declared > limits.maxBodyBytes) throw limits.maxFiles > 0 ? fileTooLarge(limits.maxFileBytes) : bodyTooLarge(limits.maxBodyBytes);
  await parse(req, res, limits);
}

async function parse(req: Request, res: Response, limits: UploadLimits): Promise<void> {
  const maxFiles = limits.maxFiles;
  const maxFields = limits.maxFields ?? 50;
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: req.headers,
      limits: { fileSize: limits.maxFileBytes, files: maxFiles, fields: maxFields, fieldSize: limits.maxFieldBytes ?? 64 * 1024, parts: maxFields + maxFiles },
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
  const pace = watchBodyPace(res, limits.rate, (err) => stop(err));
  const cap = new ByteCap(limits.maxBodyBytes, () => stop(bodyTooLarge(limits.maxBodyBytes)), (bytes) => pace.count(bytes));
  let finish: () => void = () => undefined;
  /** Refuses the form at once: the rest of the body is neither parsed nor stored. */
  const stop = (err: TtsError): void => {
    fail(err);
    req.unpipe(cap);
    cap.unpipe(parser);
    // Ends a file still being written (its temporary file is removed below); after the parser's
    // current write, which may still touch the file stream.
    setImmediate(() => parser.destroy());
    finish();
  };
  await new Promise<void>((resolve) => {
    finish = resolve;
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) stop(new TtsError('VALIDATION_FAILED', `The form field "${name}" is longer than the limit.`, { loc: ['body', name] }));
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
        stop(fileTooLarge(limits.maxFileBytes));
        stream.destroy();
        out.destroy();
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
    parser.on('filesLimit', () =>
      stop(new TtsError('UPLOAD_TOO_MANY_FILES', maxFiles === 0 ? 'This operation takes no file in its form.' : `The form carries more than ${maxFiles} file(s).`, { loc: ['body'] })),
    );
    parser.on('fieldsLimit', () => stop(new TtsError('REQUEST_BODY_TOO_LARGE', `The form has more than ${maxFields} fields.`, { loc: ['body'] })));
    parser.on('partsLimit', () => stop(new TtsError('REQUEST_BODY_TOO_LARGE', `The form has more than ${maxFields + maxFiles} parts.`, { loc: ['body'] })));
    parser.on('error', (err: unknown) => stop(new TtsError('UPLOAD_MALFORMED', undefined, { loc: ['body'], cause: err })));
    parser.on('close', () => resolve());
    req.on('aborted', () => stop(new TtsError('UPLOAD_MALFORMED', 'The client ended the upload early.', { loc: ['body'] })));
    req.pipe(cap).pipe(parser);
  });
  pace.stop();
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
