/**
 * The request body of one operation, read under a cap before anything is parsed. Each documented
 * operation gets its own reader, built from its `requestBody` in the OpenAPI document:
 *
 * - A Content-Encoding other than `identity` (gzip, br, anything) answers 415
 *   REQUEST_CONTENT_ENCODING_UNSUPPORTED without reading the body: nothing is ever inflated.
 * - `application/json` (UTF-8; any other charset 415 REQUEST_CONTENT_TYPE_UNSUPPORTED) is read up
 *   to `maxJsonBytes` (TTS_MAX_BODY_BYTES, 1 MiB): a declared Content-Length above it answers 413
 *   REQUEST_BODY_TOO_LARGE at once, a chunked body as soon as it passes the cap; the rest is
 *   discarded unread, never buffered.
 * - `application/x-www-form-urlencoded` the same, up to {@link MAX_URLENCODED_BYTES} and
 *   {@link MAX_URLENCODED_FIELDS} fields.
 * - `multipart/form-data` only on the operations that document it (415 without reading elsewhere),
 *   parsed by middleware/uploads.ts with the operation's limits: as many files as the form has
 *   binary fields (none for a form of text fields), each under the operation's file cap
 *   (`x-max-upload-bytes`, else TTS_MAX_UPLOAD_BYTES), and the whole body under the files' caps
 *   plus {@link FORM_FIELDS_BYTES} for the text fields and part headers.
 * - Other media types are not read: the OpenAPI validator answers 415 where the operation takes a
 *   body, and an operation without one ignores it.
 * - Every body is read at a minimum rate (middleware/body-rate.ts, TTS_MIN_BODY_BYTES_PER_SEC):
 *   slower, 408 REQUEST_BODY_TOO_SLOW and the connection closed.
 */
import { parse as parseQueryString } from 'node:querystring';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { TtsError } from '@tts/common';
import type { DocumentedOperation } from '../operations/openapi-document.js';
import { watchBodyPace, type BodyRate } from './body-rate.js';
import { parseMultipart, refuseBody, type UploadLimits } from './uploads.js';

/** Largest urlencoded form, bytes. */
export const MAX_URLENCODED_BYTES = 64 * 1024;
/** Most fields of an urlencoded form. */
export const MAX_URLENCODED_FIELDS = 100;
/** Room for the text fields and part headers of a multipart form, beside its files, bytes. */
export const FORM_FIELDS_BYTES = 256 * 1024;

/** The platform-wide limits the readers start from. */
export interface BodyLimits {
  /** Largest JSON body, bytes (TTS_MAX_BODY_BYTES). */
  readonly maxJsonBytes: number;
  /** Largest uploaded file, bytes (TTS_MAX_UPLOAD_BYTES); an operation's `x-max-upload-bytes` may lower it. */
  readonly maxUploadBytes: number;
  /** Folder of the uploads' temporary files. */
  readonly uploadTmpDir: string;
  /** The minimum rate bodies are read at (TTS_MIN_BODY_BYTES_PER_SEC); undefined = none. */
  readonly rate?: BodyRate;
}

/** The multipart limits of `op`, or undefined when it takes no multipart body. */
export function multipartLimitsOf(op: Pick<DocumentedOperation, 'bodyMediaTypes' | 'multipartFiles' | 'maxUploadBytes'>, limits: BodyLimits): UploadLimits | undefined {
  if (!op.bodyMediaTypes.includes('multipart/form-data')) return undefined;
  const maxFileBytes = Math.min(op.maxUploadBytes ?? limits.maxUploadBytes, limits.maxUploadBytes);
  const maxFiles = op.multipartFiles;
  return { maxFileBytes, maxFiles, maxBodyBytes: maxFiles * maxFileBytes + FORM_FIELDS_BYTES, tmpDir: limits.uploadTmpDir, rate: limits.rate };
}

/** A media type and its charset, from a Content-Type header (lower case). */
function mediaTypeOf(header: string | undefined): { type: string; charset: string | undefined } {
  const [type = '', ...params] = (header ?? '').split(';');
  let charset: string | undefined;
  for (const p of params) {
    const m = /^\s*charset\s*=\s*"?([^";]*)"?\s*$/i.exec(p);
    if (m) charset = m[1]!.trim().toLowerCase();
  }
  return { type: type.trim().toLowerCase(), charset };
}

/** True when the request carries a body (as body-parser's `type-is.hasBody`). */
const hasBody = (req: Request): boolean => req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0');

const tooLarge = (max: number): TtsError => new TtsError('REQUEST_BODY_TOO_LARGE', `The request body exceeds the limit of ${max} bytes.`, { loc: ['body'] });

/** Reads the body into memory, refusing it as soon as it passes `max` bytes or falls below `rate`. */
function readCapped(req: Request, res: Response, max: number, rate: BodyRate | undefined): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (Number.isFinite(declared) && declared > max) return Promise.reject(tooLarge(max));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const pace = watchBodyPace(res, rate, (err) => {
      done();
      reject(err);
    });
    const done = (): void => {
      pace.stop();
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      pace.count(chunk.length);
      if (size > max) {
        done();
        reject(tooLarge(max));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      done();
      resolve(Buffer.concat(chunks, size));
    };
    const onError = (err: unknown): void => {
      done();
      reject(new TtsError('TTS_CANCELLED', 'The client ended the request early.', { cause: err }));
    };
    const onClose = (): void => onError(undefined);
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

const utf8 = (charset: string | undefined): boolean => charset === undefined || charset === 'utf-8' || charset === 'utf8';

const unsupportedCharset = (charset: string): TtsError =>
  new TtsError('REQUEST_CONTENT_TYPE_UNSUPPORTED', `The charset "${charset.slice(0, 40)}" is not supported; send UTF-8.`, { loc: ['body'] });

/** Parses a JSON body as body-parser's strict mode: an object or an array; empty = {}. */
function parseJson(raw: Buffer): unknown {
  const text = raw.toString('utf8');
  const first = /^[\s\uFEFF]*(.)/.exec(text)?.[1];
  if (first === undefined) return {};
  try {
    if (first !== '{' && first !== '[') throw new SyntaxError('not an object or array');
    return JSON.parse(text.replace(/^\uFEFF/, '')) as unknown;
  } catch (err) {
    throw new TtsError('REQUEST_JSON_MALFORMED', 'The request body is not valid JSON.', { loc: ['body'], cause: err });
  }
}

/** Parses an urlencoded form (a repeated field becomes an array, as body-parser's simple mode). */
function parseForm(raw: Buffer): Record<string, unknown> {
  const text = raw.toString('utf8');
  if (text.split('&').length > MAX_URLENCODED_FIELDS) throw new TtsError('REQUEST_BODY_TOO_LARGE', `The form has more than ${MAX_URLENCODED_FIELDS} fields.`, { loc: ['body'] });
  return { ...parseQueryString(text, '&', '=', { maxKeys: MAX_URLENCODED_FIELDS }) };
}

/** Builds the body reader of one operation. */
export function requestBody(op: Pick<DocumentedOperation, 'bodyMediaTypes' | 'multipartFiles' | 'maxUploadBytes'>, limits: BodyLimits): RequestHandler {
  const multipart = multipartLimitsOf(op, limits);
  return (req: Request, res: Response, next: NextFunction): void => {
    if (!hasBody(req)) {
      next();
      return;
    }
    const fail = (err: unknown): void => refuseBody(req, next, err);
    const encoding = (req.headers['content-encoding'] ?? '').trim().toLowerCase();
    if (encoding !== '' && encoding !== 'identity') {
      fail(new TtsError('REQUEST_CONTENT_ENCODING_UNSUPPORTED', `The Content-Encoding "${encoding.slice(0, 40)}" is not supported; send the body uncompressed.`, { loc: ['body'] }));
      return;
    }
    const { type, charset } = mediaTypeOf(req.headers['content-type']);
    switch (type) {
      case 'multipart/form-data':
        if (!multipart) {
          fail(new TtsError('REQUEST_CONTENT_TYPE_UNSUPPORTED', 'This operation takes no multipart/form-data body.', { loc: ['body'] }));
          return;
        }
        parseMultipart(req, res, multipart).then(() => next(), fail);
        return;
      case 'application/json':
        if (!utf8(charset)) {
          fail(unsupportedCharset(charset!));
          return;
        }
        readCapped(req, res, limits.maxJsonBytes, limits.rate).then((raw) => {
          req.body = parseJson(raw);
          next();
        }).catch(fail);
        return;
      case 'application/x-www-form-urlencoded':
        if (!utf8(charset)) {
          fail(unsupportedCharset(charset!));
          return;
        }
        readCapped(req, res, MAX_URLENCODED_BYTES, limits.rate).then((raw) => {
          req.body = parseForm(raw);
          next();
        }).catch(fail);
        return;
      default:
        next();
    }
  };
}
