/**
 * Embeds the provenance mark into audio as it is produced: the key's periodic pattern for the
 * payload (pattern.ts), read at the audio's own rate by linear interpolation from a table built
 * once per stream, scaled by the speech's short-term level so it sits under the speech and
 * vanishes in silence, and added. A chunk comes out as soon as it goes in (no look-ahead), so
 * streams start no later. The per-sample loop is WebAssembly SIMD (marker.wat): each embedder holds
 * an instance of it (pooled) whose memory keeps its state, its table and a window the chunks pass
 * through.
 */
import { MARKER_WASM_BASE64 } from './marker-wasm.js';
import { markPeriod, PATTERN_RATE, PERIOD } from './pattern.js';

/** Mark level relative to the speech level (-36 dB): the clip's SNR stays above 35 dB. */
export const DEFAULT_STRENGTH_DB = -36;
/** Time constant of the level follower, seconds. */
const LEVEL_TIME_SEC = 0.01;

/** Options of an embedder. */
export interface EmbedOptions {
  readonly secret: string;
  /** 32-bit payload. */
  readonly payload: number;
  readonly sampleRate: number;
  /** Mark level relative to the speech, dB. @default DEFAULT_STRENGTH_DB */
  readonly strengthDb?: number;
}

/** Samples between updates of the mark's gain from the level follower (1 ms at 16 kHz; marker.wat). */
const GAIN_BLOCK = 16;

/** The parts of Node's WebAssembly global used here (@types/node 20 does not declare it). */
interface WasmApi {
  readonly Module: new (bytes: Uint8Array) => object;
  readonly Instance: new (module: object) => { readonly exports: unknown };
}
const wasm = (globalThis as unknown as { readonly WebAssembly: WasmApi }).WebAssembly;
/** The assembled marking loop (see marker.wat), compiled once per process. */
const MARKER_MODULE = new wasm.Module(Buffer.from(MARKER_WASM_BASE64, 'base64'));
/** What an instance of it exports. */
interface MarkerExports {
  readonly memory: { readonly buffer: ArrayBuffer; grow(pages: number): number };
  mark(chunkAt: number, samples: number, tableAt: number, tableLength: number, strength: number, smoothing: number): void;
}
/** Bytes of an instance's memory: the state, then the table, then the chunk window. */
const STATE_BYTES = 64;
const WINDOW_SAMPLES = 16_384;
const PAGE_BYTES = 65_536;

/**
 * Samples of the mark's period read at `sampleRate` for as many periods as it takes to come back
 * to the same phase: one period at 16, 24 and 48 kHz, five at 22.05 and 44.1 kHz (28 224 and
 * 56 448 samples); at most 125 periods (32 x the rate: 6 MB at 48 kHz) for an odd rate such as
 * 44 101 Hz.
 */
function patternTableLength(sampleRate: number): number {
  // PERIOD * rate / PATTERN_RATE output samples per period; the smallest whole number of periods
  // with a whole number of samples.
  const num = PERIOD * Math.round(sampleRate);
  let a = num;
  let b = PATTERN_RATE;
  while (b !== 0) [a, b] = [b, a % b];
  return num / a;
}

/** Fills `table` with the period read at `sampleRate`. */
function fillPatternTable(period: Float64Array, sampleRate: number, table: Float32Array): void {
  // Position n * PATTERN_RATE / rate in the period, kept as a whole part and a remainder in
  // units of 1/rate: exact, with no division per sample.
  const rate = Math.round(sampleRate);
  const perUnit = 1 / rate;
  let i = 0;
  let remainder = 0;
  for (let n = 0; n < table.length; n++) {
    // Linear interpolation of the periodic pattern: the band ends at 3.6 kHz, where it loses
    // 1.5 dB; its images above 12 kHz are 50 dB below the speech.
    const next = i + 1 === PERIOD ? 0 : i + 1;
    table[n] = period[i]! + remainder * perUnit * (period[next]! - period[i]!);
    remainder += PATTERN_RATE;
    while (remainder >= rate) {
      remainder -= rate;
      if (++i === PERIOD) i = 0;
    }
  }
}

/** Instances of the marking module kept for the next embedders (each keeps the memory it grew to). */
const idle: MarkerExports[] = [];
/** Idle instances kept at most, and the most memory one may hold to be kept (an odd rate's table can take 6 MB). */
const MAX_IDLE = 16;
const MAX_IDLE_BYTES = 1 << 20;

/** An instance with at least `bytes` of memory, its state zeroed. */
function acquireMarker(bytes: number): MarkerExports {
  const marker = idle.pop() ?? (new wasm.Instance(MARKER_MODULE).exports as MarkerExports);
  const pages = Math.ceil(bytes / PAGE_BYTES) - marker.memory.buffer.byteLength / PAGE_BYTES;
  if (pages > 0) marker.memory.grow(pages);
  new Uint8Array(marker.memory.buffer, 0, STATE_BYTES).fill(0);
  return marker;
}

/**
 * Stateful embedder of one audio stream. Call `release()` when the stream ends: its WebAssembly
 * instance goes back to a pool (an embedder never released is simply collected).
 */
export class WatermarkEmbedder {
  private marker: MarkerExports | undefined;
  private readonly tableLength: number;
  private readonly windowAt: number;
  private readonly window: Float32Array;
  private readonly strength: number;
  /** Weight of one block's mean square in the level follower. */
  private readonly smoothing: number;

  constructor(options: EmbedOptions) {
    const period = markPeriod(options.secret, options.payload >>> 0);
    this.tableLength = patternTableLength(options.sampleRate);
    this.windowAt = STATE_BYTES + this.tableLength * 4;
    this.marker = acquireMarker(this.windowAt + WINDOW_SAMPLES * 4);
    // The memory does not grow while this embedder holds it, so these views stay valid.
    fillPatternTable(period, options.sampleRate, new Float32Array(this.marker.memory.buffer, STATE_BYTES, this.tableLength));
    this.window = new Float32Array(this.marker.memory.buffer, this.windowAt, WINDOW_SAMPLES);
    this.strength = 10 ** ((options.strengthDb ?? DEFAULT_STRENGTH_DB) / 20);
    this.smoothing = 1 - Math.exp(-GAIN_BLOCK / (LEVEL_TIME_SEC * options.sampleRate));
  }

  /** The chunk with the mark added (a new array; the input is not changed). */
  process(chunk: Float32Array): Float32Array {
    return this.markInPlace(new Float32Array(chunk));
  }

  /** Adds the mark to `chunk` itself and returns it (the node's pipeline: no copy per piece). */
  markInPlace(chunk: Float32Array): Float32Array {
    const marker = this.marker;
    if (marker === undefined) throw new Error('WatermarkEmbedder used after release()');
    for (let at = 0; at < chunk.length; at += WINDOW_SAMPLES) {
      const part = chunk.subarray(at, at + WINDOW_SAMPLES);
      this.window.set(part);
      marker.mark(this.windowAt, part.length, STATE_BYTES, this.tableLength, this.strength, this.smoothing);
      part.set(this.window.subarray(0, part.length));
    }
    return chunk;
  }

  /** Gives the instance back to the pool (idempotent); the embedder cannot mark afterwards. */
  release(): void {
    if (this.marker !== undefined && idle.length < MAX_IDLE && this.marker.memory.buffer.byteLength <= MAX_IDLE_BYTES) idle.push(this.marker);
    this.marker = undefined;
  }
}

/** Marks a whole clip in one call. */
export function embedWatermark(samples: Float32Array, options: EmbedOptions): Float32Array {
  const embedder = new WatermarkEmbedder(options);
  try {
    return embedder.process(samples);
  } finally {
    embedder.release();
  }
}
