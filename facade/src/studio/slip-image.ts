/**
 * What a payment slip must be before anyone reads it: a whole, well-formed JPEG, PNG or WebP image of
 * at most 4096 x 4096 pixels, and nothing else. The header is read with `image-size` (type and
 * dimensions, so a 20000 x 20000 image is refused before any decoding); a PNG is then decoded whole
 * by `fast-png` with every chunk's CRC checked, a JPEG by `jpeg-js` under memory and resolution caps;
 * a WebP's RIFF length must be the file's. Bytes after the image's end (IEND, EOI, the RIFF length)
 * are refused: a file that is an image and also an HTML page or an archive is not a slip.
 */
import { decode as decodePng } from 'fast-png';
import { imageSize } from 'image-size';
import jpeg from 'jpeg-js';
import { TtsError } from '@tts/common';

/** Largest accepted width and height of a slip, pixels. */
export const MAX_SLIP_SIDE = 4096;

/** The checked image. */
export interface SlipImage {
  readonly type: 'png' | 'jpg' | 'webp';
  readonly width: number;
  readonly height: number;
}

const IEND = Buffer.from([0, 0, 0, 0, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82]);

function notImage(why: string): TtsError {
  return new TtsError('STUDIO_SLIP_NOT_IMAGE', `The slip is not a well-formed JPEG, PNG or WebP image: ${why}.`, { loc: ['body', 'slip'] });
}

/** Checks a slip's bytes; throws STUDIO_SLIP_NOT_IMAGE or STUDIO_SLIP_DIMENSIONS (422). */
export function checkSlipImage(bytes: Buffer): SlipImage {
  let header: { type?: string | undefined; width: number; height: number };
  try {
    header = imageSize(bytes);
  } catch {
    throw notImage('no image header');
  }
  const type = header.type === 'png' || header.type === 'jpg' || header.type === 'webp' ? header.type : undefined;
  if (type === undefined) throw notImage(`type ${header.type ?? 'unknown'}`);
  const { width, height } = header;
  if (!(width > 0 && height > 0)) throw notImage('no dimensions');
  if (width > MAX_SLIP_SIDE || height > MAX_SLIP_SIDE) {
    throw new TtsError('STUDIO_SLIP_DIMENSIONS', `The slip is ${width} x ${height} pixels; at most ${MAX_SLIP_SIDE} x ${MAX_SLIP_SIDE} are accepted.`, { loc: ['body', 'slip'] });
  }
  try {
    if (type === 'png') {
      decodePng(bytes, { checkCrc: true });
      if (bytes.indexOf(IEND) !== bytes.length - IEND.length) throw new Error('bytes after IEND');
    } else if (type === 'jpg') {
      jpeg.decode(bytes, { useTArray: true, maxResolutionInMP: (MAX_SLIP_SIDE * MAX_SLIP_SIDE) / 1e6, maxMemoryUsageInMB: 128 });
      if (bytes[bytes.length - 2] !== 0xff || bytes[bytes.length - 1] !== 0xd9) throw new Error('bytes after the end of image marker');
    } else if (bytes.readUInt32LE(4) + 8 !== bytes.length) {
      throw new Error('the RIFF length is not the file length');
    }
  } catch (err) {
    throw notImage(err instanceof Error ? err.message.slice(0, 120) : 'undecodable');
  }
  return { type, width, height };
}
