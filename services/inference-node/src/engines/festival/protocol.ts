/**
 * The festival server's client protocol. The client sends Scheme expressions; for each one the
 * server answers with any number of `WV\n` (a wave file) and `LP\n` (a printed Lisp value) messages,
 * each ended by the key `ft_StUfF_key`, then `OK\n` (done) or `ER\n` (the expression failed).
 *
 * Key stuffing (festival's `socket_send_file`): when the payload itself contains the key, the
 * server sends an `X` before its last character. The decoder below mirrors festival's own client
 * (`socket_receive_file_to_buff`) byte for byte, including its matcher not re-checking the byte that
 * broke a partial match. Like festival's own client it cannot frame a payload that contains
 * `ft_StUfF_keX` or ends with a prefix of the key (a limit of the protocol; for 16-bit audio the
 * odds are about 2^-96 per byte).
 */
import { TtsError } from '@tts/common';

const KEY = Buffer.from('ft_StUfF_key', 'latin1');

/** One message from the server. */
export type FestivalMessage =
  | { readonly type: 'WV'; readonly data: Buffer }
  | { readonly type: 'LP'; readonly data: Buffer }
  | { readonly type: 'OK' }
  | { readonly type: 'ER' };

/** Incremental decoder of the server's byte stream. */
export class FestivalDecoder {
  private header = '';
  private payloadType: 'WV' | 'LP' | null = null;
  private matched = 0;
  private parts: Buffer[] = [];
  private pending: number[] = [];

  /** Feeds received bytes; returns the messages they complete. Throws on a malformed stream. */
  push(chunk: Buffer): FestivalMessage[] {
    const out: FestivalMessage[] = [];
    let i = 0;
    while (i < chunk.length) {
      if (this.payloadType === null) {
        this.header += String.fromCharCode(chunk[i]!);
        i += 1;
        if (this.header.length < 3) continue;
        const header = this.header;
        this.header = '';
        if (header === 'OK\n') out.push({ type: 'OK' });
        else if (header === 'ER\n') out.push({ type: 'ER' });
        else if (header === 'WV\n' || header === 'LP\n') this.payloadType = header === 'WV\n' ? 'WV' : 'LP';
        else throw new TtsError('TTS_ENGINE_FAILED', `festival: unexpected reply ${JSON.stringify(header)}`);
        continue;
      }
      i = this.readPayload(chunk, i, out);
    }
    return out;
  }

  private readPayload(chunk: Buffer, start: number, out: FestivalMessage[]): number {
    const keyEnd = KEY.length;
    let runStart = start;
    let i = start;
    for (; i < chunk.length; i++) {
      const c = chunk[i]!;
      if (this.matched === 0 && c !== KEY[0]) continue; // fast path: plain payload byte
      if (this.matched === 0) {
        this.flushRun(chunk, runStart, i);
        runStart = i + 1;
      } else {
        runStart = i + 1;
      }
      if (KEY[this.matched] === c) {
        this.matched += 1;
        this.pending.push(c);
        if (this.matched === keyEnd) {
          out.push({ type: this.payloadType!, data: Buffer.concat(this.parts) });
          this.parts = [];
          this.pending = [];
          this.matched = 0;
          this.payloadType = null;
          return i + 1;
        }
      } else if (c === 0x58 /* X */ && this.matched === keyEnd - 1) {
        // A stuffed key: keep the bytes matched so far, drop the X.
        this.parts.push(Buffer.from(this.pending));
        this.pending = [];
        this.matched = 0;
      } else {
        // Not the key: the matched bytes and this one are payload (festival does not re-check it).
        this.pending.push(c);
        this.parts.push(Buffer.from(this.pending));
        this.pending = [];
        this.matched = 0;
      }
    }
    if (this.matched === 0) this.flushRun(chunk, runStart, i);
    return i;
  }

  private flushRun(chunk: Buffer, from: number, to: number): void {
    if (to > from) this.parts.push(Buffer.from(chunk.subarray(from, to)));
  }
}

/** Encodes `payload` the way festival's server does (see the module comment); used by tests. */
export function stuffPayload(payload: Buffer): Buffer {
  const out: number[] = [];
  let k = 0;
  for (const c of payload) {
    if (KEY[k] === c) k += 1;
    else k = 0;
    if (k === KEY.length) {
      out.push(0x58);
      k = 0;
    }
    out.push(c);
  }
  return Buffer.concat([Buffer.from(out), KEY]);
}

/**
 * A Scheme string literal holding `text`: control characters become spaces, `\` and `"` are
 * escaped, so the text can never end the literal early (no Scheme injection).
 */
export function schemeString(text: string): string {
  const clean = text.replace(/[\u0000-\u001f\u007f]/g, ' ');
  return `"${clean.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

/** Mono 16-bit PCM decoded from a RIFF/WAVE file as festival writes it. */
export function parseRiffWave(data: Buffer): { samples: Float32Array; sampleRate: number } {
  if (data.length < 12 || data.toString('latin1', 0, 4) !== 'RIFF' || data.toString('latin1', 8, 12) !== 'WAVE') {
    throw new TtsError('TTS_ENGINE_FAILED', 'festival: the wave is not RIFF/WAVE');
  }
  let sampleRate = 0;
  let channels = 0;
  let bits = 0;
  for (let off = 12; off + 8 <= data.length; ) {
    const id = data.toString('latin1', off, off + 4);
    const size = data.readUInt32LE(off + 4);
    const body = off + 8;
    if (id === 'fmt ' && body + 16 <= data.length) {
      channels = data.readUInt16LE(body + 2);
      sampleRate = data.readUInt32LE(body + 4);
      bits = data.readUInt16LE(body + 14);
    } else if (id === 'data') {
      if (channels !== 1 || bits !== 16 || sampleRate <= 0) {
        throw new TtsError('TTS_ENGINE_FAILED', `festival: unsupported wave format (${channels} ch, ${bits} bit, ${sampleRate} Hz)`);
      }
      const end = Math.min(data.length, body + size) & ~1;
      const samples = new Float32Array((end - body) / 2);
      for (let i = 0; i < samples.length; i++) samples[i] = data.readInt16LE(body + 2 * i) / 32768;
      return { samples, sampleRate };
    }
    off = body + size + (size & 1);
  }
  throw new TtsError('TTS_ENGINE_FAILED', 'festival: the wave has no data chunk');
}
