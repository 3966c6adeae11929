/**
 * One loaded Piper voice model: its config and its (reused) ONNX session, and the batched
 * inference step: pad a batch of id sequences to the longest, run the session once with
 * `input`, `input_lengths`, `scales` (and `sid`), then cut each item's audio out of the padded
 * output.
 *
 * Per-item lengths: when the model has an `output_lengths` output (int64 [B], samples per item;
 * the project's fixtures have it, a VITS export can add it from the summed durations), each item
 * is cut to its length, so batched output equals unbatched output. Official Piper exports return
 * only `output`; then each item's trailing samples at or below `silenceThreshold` are trimmed, for
 * single and batched runs alike, which is exact when the padded frames decode to near silence.
 */
import type { OnnxModelSession } from './onnx-runner.js';
import type { PlainTensor } from './onnx-session.js';
import type { PiperVoiceConfig, PiperVoiceFiles } from './voice-config.js';

/** One utterance of a batch. */
export interface PiperUtterance {
  /** Phoneme ids, `^ _ ... $` (see phonemesToIds). */
  readonly ids: readonly number[];
  /** Speaker id; ignored by single-speaker models. */
  readonly sid: number;
}

/** Inference scales, shared by every item of a batch. */
export interface PiperScales {
  readonly noiseScale: number;
  readonly lengthScale: number;
  readonly noiseW: number;
}

/** A voice model ready to run. */
export class PiperModel {
  /** True when the model takes a `sid` input. */
  readonly hasSid: boolean;
  /** True when the model returns `output_lengths`. */
  readonly hasLengths: boolean;
  private readonly padId: number;
  private readonly silenceThreshold: number;

  /**
   * Wraps an opened session (it is reused for every batch). Throws when the session does not
   * follow the Piper contract (`input`, `input_lengths`, `scales` in; `output` out; `sid` in for
   * multi-speaker configs).
   */
  constructor(
    readonly files: PiperVoiceFiles,
    readonly config: PiperVoiceConfig,
    private readonly session: OnnxModelSession,
    options: { silenceThreshold?: number } = {},
  ) {
    for (const name of ['input', 'input_lengths', 'scales']) {
      if (!session.inputNames.includes(name)) throw new Error(`${files.onnxPath}: the model has no "${name}" input (inputs: ${session.inputNames.join(', ')})`);
    }
    if (!session.outputNames.includes('output')) throw new Error(`${files.onnxPath}: the model has no "output" output`);
    this.hasSid = session.inputNames.includes('sid');
    if (config.numSpeakers > 1 && !this.hasSid) throw new Error(`${files.onnxPath}: num_speakers is ${config.numSpeakers} but the model has no "sid" input`);
    this.hasLengths = session.outputNames.includes('output_lengths');
    this.padId = config.phonemeIdMap.get('_')?.[0] ?? 0;
    this.silenceThreshold = options.silenceThreshold ?? 1e-3;
  }

  /** Voice name (file name without `.onnx`). */
  get name(): string {
    return this.files.name;
  }

  /** Execution provider the session runs on. */
  get provider(): string {
    return this.session.provider;
  }

  /** Providers tried before `provider` and why each failed. */
  get skippedProviders(): readonly { readonly provider: string; readonly error: string }[] {
    return this.session.skippedProviders;
  }

  /** The model's default scales with `lengthScale` divided by `speed`. */
  scalesFor(speed: number): PiperScales {
    return { noiseScale: this.config.noiseScale, lengthScale: this.config.lengthScale / speed, noiseW: this.config.noiseW };
  }

  /** Runs one batched session call; the result at index i is item i's audio at `config.sampleRate`. */
  async infer(batch: readonly PiperUtterance[], scales: PiperScales): Promise<Float32Array[]> {
    const count = batch.length;
    if (count === 0) return [];
    const width = Math.max(1, ...batch.map((u) => u.ids.length));
    const input = new BigInt64Array(count * width).fill(BigInt(this.padId));
    const lengths = new BigInt64Array(count);
    batch.forEach((u, i) => {
      for (let j = 0; j < u.ids.length; j++) input[i * width + j] = BigInt(u.ids[j]!);
      lengths[i] = BigInt(u.ids.length);
    });
    const feeds: Record<string, PlainTensor> = {
      input: { type: 'int64', data: input, dims: [count, width] },
      input_lengths: { type: 'int64', data: lengths, dims: [count] },
      scales: { type: 'float32', data: Float32Array.from([scales.noiseScale, scales.lengthScale, scales.noiseW]), dims: [3] },
    };
    if (this.hasSid) feeds['sid'] = { type: 'int64', data: BigInt64Array.from(batch.map((u) => BigInt(u.sid))), dims: [count] };
    const outputs = await this.session.run(feeds);
    return this.split(outputs, count);
  }

  /** Cuts each item's samples out of the padded `output`. */
  private split(outputs: Readonly<Record<string, PlainTensor>>, count: number): Float32Array[] {
    const output = outputs['output'];
    if (output === undefined || output.type !== 'float32') throw new Error(`${this.name}: the model returned no float32 "output"`);
    const dims = output.dims;
    const time = dims[dims.length - 1] ?? 0;
    const middle = dims.slice(1, -1).every((d) => d === 1);
    if (dims.length < 2 || dims[0] !== count || !middle || output.data.length !== count * time) {
      throw new Error(`${this.name}: unexpected output shape [${dims.join(', ')}] for a batch of ${count}`);
    }
    const lengths = outputs['output_lengths'];
    const result: Float32Array[] = [];
    for (let i = 0; i < count; i++) {
      const row = output.data.subarray(i * time, (i + 1) * time);
      let length: number;
      if (lengths !== undefined && lengths.type === 'int64' && lengths.data.length === count) {
        length = Math.min(time, Math.max(0, Number(lengths.data[i]!)));
      } else {
        length = row.length;
        while (length > 0 && Math.abs(row[length - 1]!) <= this.silenceThreshold) length--;
      }
      result.push(row.slice(0, length));
    }
    return result;
  }

}
