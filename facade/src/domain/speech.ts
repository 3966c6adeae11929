/**
 * Turning a client's speech request into a gRPC SynthesizeRequest, and writing audio back:
 * whole files, chunked streams, or OpenAI-style server-sent events.
 */
import { once } from 'node:events';
import type { Response } from 'express';
import type { SynthesisMetrics, SynthesizeRequest } from '@tts/proto/synthesis';
import type { AudioFormat } from '@tts/common/audio';
import { encodingOf, TtsError } from '@tts/common';
import type { JobSpec } from '@tts/proto/scheduler';
import type { ClusterView } from './cluster.js';
import type { SynthesisStream } from './synthesis.js';
import { resolveClientVoice } from './voices.js';

/** A transport-neutral speech request. */
export interface SpeechParams {
  readonly requestId: string;
  readonly tenantId: string;
  readonly text: string;
  readonly voice: string;
  readonly engine: string;
  readonly speed: number;
  readonly format: AudioFormat;
  readonly sampleRate: number;
  readonly language: string;
  readonly rawText: boolean;
  readonly instructions: string;
}

/** The gRPC request for `p`. */
export function synthesizeRequestOf(p: SpeechParams): SynthesizeRequest {
  return {
    requestId: p.requestId,
    text: p.text,
    voice: p.voice,
    engine: p.engine,
    speed: p.speed,
    encoding: encodingOf(p.format),
    sampleRate: p.sampleRate,
    tenantId: p.tenantId,
    language: p.language,
    instructions: p.instructions,
    rawText: p.rawText,
  };
}

/** Sets the X-TTS-* headers describing who spoke. */
export function setVoiceHeaders(res: Response, facts: { voice: string; engine: string; nodeId: string; sampleRate: number }): void {
  res.setHeader('X-TTS-Voice', facts.voice);
  res.setHeader('X-TTS-Engine', facts.engine);
  res.setHeader('X-TTS-Node', facts.nodeId);
  res.setHeader('X-Audio-Sample-Rate', String(facts.sampleRate));
}

async function write(res: Response, data: string | Buffer): Promise<void> {
  if (!res.write(data)) await Promise.race([once(res, 'drain'), once(res, 'close')]);
}

/**
 * Streams audio chunks as the body (chunked transfer encoding). Returns the final metrics, or
 * undefined when the client went away first.
 */
export async function pipeAudio(stream: SynthesisStream, res: Response, signal: AbortSignal): Promise<SynthesisMetrics | undefined> {
  res.status(200).type(stream.info.contentType);
  res.flushHeaders();
  let metrics: SynthesisMetrics | undefined;
  try {
    for await (const chunk of stream.chunks) {
      if (chunk.data.length > 0) await write(res, Buffer.from(chunk.data.buffer, chunk.data.byteOffset, chunk.data.byteLength));
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

/**
 * Streams audio as OpenAI's server-sent events: `speech.audio.delta` with base64 audio, then one
 * `speech.audio.done` with usage (input tokens = characters, output tokens = 20 ms audio frames).
 */
export async function pipeSse(stream: SynthesisStream, res: Response, signal: AbortSignal): Promise<SynthesisMetrics | undefined> {
  res.status(200).type('text/event-stream');
  res.setHeader('Cache-Control', 'no-cache');
  res.flushHeaders();
  let metrics: SynthesisMetrics | undefined;
  try {
    for await (const chunk of stream.chunks) {
      if (chunk.data.length > 0) {
        const audio = Buffer.from(chunk.data.buffer, chunk.data.byteOffset, chunk.data.byteLength).toString('base64');
        await write(res, `data: ${JSON.stringify({ type: 'speech.audio.delta', audio })}\n\n`);
      }
      if (chunk.metrics) metrics = chunk.metrics;
      if (signal.aborted) return undefined;
    }
  } catch (err) {
    if (signal.aborted) return undefined;
    throw err;
  }
  const input = metrics?.characters ?? 0;
  const output = Math.round(((metrics?.audioSeconds ?? 0) * 1000) / 20);
  await write(res, `data: ${JSON.stringify({ type: 'speech.audio.done', usage: { input_tokens: input, output_tokens: output, total_tokens: input + output } })}\n\n`);
  res.end();
  return metrics;
}

/**
 * The platform voice id for a request's voice: ids with an engine prefix pass through; OpenAI
 * names and bare names are resolved against the voices of the ready nodes.
 */
export async function platformVoice(cluster: ClusterView, voice: string, engine: string, defaultVoice: string): Promise<string> {
  if (voice === '' || voice.includes(':')) return voice;
  const snap = await cluster.snapshot();
  return resolveClientVoice(voice, engine, snap.voices, defaultVoice);
}

/** The job spec of a speech request (jobs keep mode and consent as sent). */
export function jobSpecOf(p: SpeechParams, mode: string, consentConfirmed: boolean): JobSpec {
  return {
    text: p.text,
    voice: p.voice,
    engine: p.engine,
    speed: p.speed,
    encoding: encodingOf(p.format),
    sampleRate: p.sampleRate,
    language: p.language,
    mode,
    consentConfirmed,
    instructions: p.instructions,
    rawText: p.rawText,
  };
}

/** The speech fields of a request (TtsRequest JSON, or the web job form). */
export interface SpeechFields {
  readonly text: string;
  readonly voice?: string | undefined;
  readonly engine?: string | undefined;
  readonly format?: AudioFormat | undefined;
  readonly speed?: number | undefined;
  readonly sampleRate?: number | undefined;
  readonly language?: string | undefined;
  readonly normalize?: boolean | undefined;
}

/**
 * The speech parameters of a request: refuses empty text (TTS_TEXT_EMPTY, 422), resolves the voice
 * name and applies the documented defaults.
 */
export async function speechParamsFor(cluster: ClusterView, defaultVoice: string, requestId: string, tenantId: string, f: SpeechFields): Promise<SpeechParams> {
  if (f.text.trim() === '') throw new TtsError('TTS_TEXT_EMPTY', 'text is empty or only white space.', { loc: ['body', 'text'] });
  const engine = f.engine ?? '';
  return {
    requestId,
    tenantId,
    text: f.text,
    voice: await platformVoice(cluster, f.voice ?? '', engine, defaultVoice),
    engine,
    speed: f.speed ?? 1,
    format: f.format ?? 'wav',
    sampleRate: f.sampleRate ?? 0,
    language: f.language ?? '',
    rawText: f.normalize === false,
    instructions: '',
  };
}
