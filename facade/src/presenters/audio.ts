/**
 * Writing audio answers: whole files, chunked streams, OpenAI-style server-sent events,
 * ElevenLabs-style audio with character timings (JSON, newline-delimited JSON), a job's stored
 * audio, and the headers that describe them. Handlers call these; the domain never touches a
 * response.
 */
import { once } from 'node:events';
import type { Response } from 'express';
import type { AudioChunk, CloneReport, SynthesisMetrics, WordTiming } from '@tts/proto/synthesis';
import type { Job, JobAudioChunk } from '@tts/proto/scheduler';
import { formatOf } from '@tts/common';
import type { SynthesisStream } from '../speech/synthesis.js';
import { alignText, TextAligner, type CharacterTimes } from '../speech/alignment.js';
import type { SpokenFile } from '../speech/speak.js';
import { QUOTA_STAGE_HEADER, type QuotaStatus } from '../identity/index.js';
import { NO_STORE } from '../middleware/security-headers.js';
import { elapsedMs } from '../middleware/telemetry.js';

/** Sets the X-TTS-* headers describing who spoke. */
function setVoiceHeaders(res: Response, facts: { voice: string; engine: string; nodeId: string; sampleRate: number }): void {
  res.setHeader('X-TTS-Voice', facts.voice);
  res.setHeader('X-TTS-Engine', facts.engine);
  res.setHeader('X-TTS-Node', facts.nodeId);
  res.setHeader('X-Audio-Sample-Rate', String(facts.sampleRate));
}

/** Sets X-Quota-Stage when the caller has a quota (API keys). */
export function setQuotaStage(res: Response, quota: QuotaStatus | undefined): void {
  if (quota !== undefined) res.setHeader(QUOTA_STAGE_HEADER, quota.stage);
}

/** Word timings as JSON: `{ word, start, end }`, seconds to the millisecond. */
function wordsJson(words: readonly WordTiming[]): { word: string; start: number; end: number }[] {
  const ms = (s: number): number => Math.round(s * 1000) / 1000;
  return words.map((w) => ({ word: w.word, start: ms(w.startSec), end: ms(w.endSec) }));
}

async function write(res: Response, data: string | Buffer): Promise<void> {
  if (!res.write(data)) await Promise.race([once(res, 'drain'), once(res, 'close')]);
}

const bufferOf = (data: Uint8Array): Buffer => Buffer.from(data.buffer, data.byteOffset, data.byteLength);

/**
 * The headers of a whole file: the voice, the clone report and the timings (Server-Timing: total,
 * the gRPC call, the node, the engine, the queue, and a reload when there was one).
 */
function setFileHeaders(res: Response, file: SpokenFile): void {
  const { response, nodeId, gatewayMs } = file;
  if (response.clone) setCloneHeaders(res, response.clone);
  setVoiceHeaders(res, { voice: response.voice, engine: response.engine, nodeId, sampleRate: response.sampleRate });
  const m = response.metrics;
  if (m) {
    res.setHeader('X-Audio-Duration-Sec', m.audioSeconds.toFixed(3));
    res.setHeader(
      'Server-Timing',
      `total;dur=${elapsedMs(res).toFixed(2)}, grpc;dur=${gatewayMs.toFixed(2)}, node;dur=${m.nodeMs.toFixed(2)}, synth;dur=${(m.computeSeconds * 1000).toFixed(2)}, queue;dur=${m.queueMs.toFixed(2)}` +
        // The voice was unloaded for idleness and loaded again for this request.
        (m.loadMs > 0 ? `, load;dur=${m.loadMs.toFixed(2)}` : ''),
    );
  }
}

/**
 * Sends a whole file (200): the audio bytes, or with `timestamps` a JSON answer with the audio in
 * base64 and the words' timings; headers as `setFileHeaders` says.
 */
export function sendSpokenFile(res: Response, file: SpokenFile, timestamps: boolean): void {
  setFileHeaders(res, file);
  const { response } = file;
  const m = response.metrics;
  const audio = bufferOf(response.audio);
  if (timestamps) {
    res.status(200).json({
      audio: audio.toString('base64'),
      content_type: response.contentType,
      sample_rate: response.sampleRate,
      duration_seconds: Math.round((m?.audioSeconds ?? 0) * 1000) / 1000,
      words: wordsJson(response.words),
    });
  } else {
    res.status(200).type(response.contentType).send(audio);
  }
}

/**
 * Streams a synthesis as the body, after the headers that name the voice: the audio bytes
 * (chunked), or with `sse` OpenAI's server-sent events. Returns the final metrics, or undefined
 * when the client went away first.
 */
export function streamSpoken(res: Response, stream: SynthesisStream, sse: boolean, signal: AbortSignal): Promise<SynthesisMetrics | undefined> {
  setVoiceHeaders(res, { voice: stream.info.voice, engine: stream.info.engine, nodeId: stream.nodeId, sampleRate: stream.info.sampleRate });
  return sse ? pipeSse(stream, res, signal) : pipeAudio(stream, res, signal);
}

/**
 * Streams audio chunks as the body (chunked transfer encoding). Returns the final metrics, or
 * undefined when the client went away first.
 */
async function pipeAudio(stream: SynthesisStream, res: Response, signal: AbortSignal): Promise<SynthesisMetrics | undefined> {
  res.status(200).type(stream.info.contentType);
  res.setHeader('Cache-Control', NO_STORE);
  res.flushHeaders();
  let metrics: SynthesisMetrics | undefined;
  try {
    for await (const chunk of stream.chunks) {
      if (chunk.data.length > 0) await write(res, bufferOf(chunk.data));
      if (chunk.metrics) metrics = chunk.metrics;
      if (signal.aborted) return undefined;
    }
  } catch (err) {
    if (signal.aborted) return undefined;
    throw err;
  }
  res.end();
  return metrics;
}

/** How a stream of text messages (server-sent events, JSON lines) says its chunks and its end. */
interface MessageFormat {
  readonly contentType: string;
  /** The message of a chunk that holds audio or words; undefined: none. */
  readonly chunk: (chunk: AudioChunk) => string | undefined;
  /** The last message, after the last chunk; undefined: none. */
  readonly end: (metrics: SynthesisMetrics | undefined) => string | undefined;
}

/** Streams a synthesis as text messages. Returns the final metrics, or undefined when the client went away first. */
async function pipeMessages(stream: SynthesisStream, res: Response, signal: AbortSignal, format: MessageFormat): Promise<SynthesisMetrics | undefined> {
  res.status(200).type(format.contentType);
  res.setHeader('Cache-Control', NO_STORE);
  res.flushHeaders();
  let metrics: SynthesisMetrics | undefined;
  try {
    for await (const chunk of stream.chunks) {
      const message = chunk.data.length > 0 || chunk.words.length > 0 ? format.chunk(chunk) : undefined;
      if (message !== undefined) await write(res, message);
      if (chunk.metrics) metrics = chunk.metrics;
      if (signal.aborted) return undefined;
    }
  } catch (err) {
    if (signal.aborted) return undefined;
    throw err;
  }
  const last = format.end(metrics);
  if (last !== undefined) await write(res, last);
  res.end();
  return metrics;
}

/**
 * Streams audio as OpenAI's server-sent events: `speech.audio.delta` with base64 audio (and, as an
 * extension, `words`: the timings of the words whose audio it holds, when there are any), then one
 * `speech.audio.done` with usage (input tokens = characters, output tokens = 20 ms audio frames).
 */
function pipeSse(stream: SynthesisStream, res: Response, signal: AbortSignal): Promise<SynthesisMetrics | undefined> {
  return pipeMessages(stream, res, signal, {
    contentType: 'text/event-stream',
    chunk: (chunk) => {
      const words = chunk.words.length > 0 ? { words: wordsJson(chunk.words) } : {};
      return `data: ${JSON.stringify({ type: 'speech.audio.delta', audio: bufferOf(chunk.data).toString('base64'), ...words })}\n\n`;
    },
    end: (metrics) => {
      const input = metrics?.characters ?? 0;
      const output = Math.round(((metrics?.audioSeconds ?? 0) * 1000) / 20);
      return `data: ${JSON.stringify({ type: 'speech.audio.done', usage: { input_tokens: input, output_tokens: output, total_tokens: input + output } })}\n\n`;
    },
  });
}

/** ElevenLabs' alignment object of character times; null when there are none. */
function alignmentJson(t: CharacterTimes): { characters: string[]; character_start_times_seconds: number[]; character_end_times_seconds: number[] } | null {
  return t.characters.length === 0 ? null : { characters: t.characters, character_start_times_seconds: t.starts, character_end_times_seconds: t.ends };
}

/**
 * Sends a whole file as ElevenLabs' with-timestamps JSON (200): the audio in base64, where each
 * character of `text` is in it (`alignment`) and each character of the words as read
 * (`normalized_alignment`); both null when the engine reported no words. Headers as `sendSpokenFile`.
 */
export function sendTimestampedFile(res: Response, file: SpokenFile, text: string): void {
  setFileHeaders(res, file);
  const { response } = file;
  const aligned = response.words.length === 0 ? undefined : alignText(text, response.words, response.metrics?.audioSeconds ?? 0);
  res.status(200).json({
    audio_base64: bufferOf(response.audio).toString('base64'),
    alignment: aligned === undefined ? null : alignmentJson(aligned.text),
    normalized_alignment: aligned === undefined ? null : alignmentJson(aligned.normalized),
  });
}

/**
 * Streams a synthesis as ElevenLabs' newline-delimited with-timestamps JSON: per chunk, its audio in
 * base64 and the characters of `text` (and of the words as read) whose words it brought, null when
 * none; the characters after the last word come on a last line with empty audio. Returns the final
 * metrics, or undefined when the client went away first.
 */
export function streamTimestamped(res: Response, stream: SynthesisStream, text: string, signal: AbortSignal): Promise<SynthesisMetrics | undefined> {
  setVoiceHeaders(res, { voice: stream.info.voice, engine: stream.info.engine, nodeId: stream.nodeId, sampleRate: stream.info.sampleRate });
  const aligner = new TextAligner(text);
  let timed = false;
  const line = (audio: Buffer, alignment: CharacterTimes, normalized: CharacterTimes): string =>
    `${JSON.stringify({ audio_base64: audio.toString('base64'), alignment: alignmentJson(alignment), normalized_alignment: alignmentJson(normalized) })}\n`;
  return pipeMessages(stream, res, signal, {
    contentType: 'application/x-ndjson',
    chunk: (chunk) => {
      timed ||= chunk.words.length > 0;
      const batch = aligner.take(chunk.words);
      return line(bufferOf(chunk.data), batch.text, batch.normalized);
    },
    end: (metrics) => {
      const rest = aligner.rest(metrics?.audioSeconds ?? 0);
      return timed && rest.characters.length > 0 ? line(Buffer.alloc(0), rest, { characters: [], starts: [], ends: [] }) : undefined;
    },
  });
}

/**
 * Sends a completed job's audio (200, its content type, length and ETag, as an attachment). The
 * headers go out with the first chunk, so an error before it still gets an error answer.
 */
export async function sendJobAudio(res: Response, job: Job, chunks: AsyncIterable<JobAudioChunk>): Promise<void> {
  let started = false;
  for await (const chunk of chunks) {
    if (!started) {
      const r = chunk.result ?? job.result;
      res.status(200).type(r?.contentType || 'audio/wav');
      res.setHeader('Cache-Control', NO_STORE);
      if (r?.sizeBytes) res.setHeader('Content-Length', String(r.sizeBytes));
      if (r?.sha256) res.setHeader('ETag', `"${r.sha256}"`);
      res.setHeader('Content-Disposition', `attachment; filename="${job.jobId}.${formatOf(r?.encoding ?? 0) ?? 'wav'}"`);
      started = true;
    }
    if (chunk.data.length > 0) await write(res, bufferOf(chunk.data));
  }
  res.end();
}

/** The X-Clone-* headers of an answer. */
function setCloneHeaders(res: Response, report: CloneReport): void {
  res.setHeader('X-Clone-Voice', report.voice);
  res.setHeader('X-Clone-Similarity-Before', report.similarityBefore.toFixed(4));
  res.setHeader('X-Clone-Similarity-After', report.similarityAfter.toFixed(4));
  res.setHeader('X-Clone-Pitch-Semitones', report.pitchSemitones.toFixed(2));
  res.setHeader('X-Clone-Speed', report.speed.toFixed(3));
  res.setHeader('X-Clone-Adapted', String(report.adapted));
}
