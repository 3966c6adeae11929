/**
 * Streaming playback for API-key users: POST /v1/audio/speech (mp3, `stream_format: audio`) read
 * as it arrives and appended to an mp3 SourceBuffer of a MediaSource, so the audio element plays
 * the first sentences while the later ones are still being synthesized. The element records when
 * playback started and when the response ended (`data-playing-at`, `data-response-done-at`, in
 * performance.now() milliseconds).
 */
import { apiErrorOf, type ApiError } from '../../lib/api.js';
import type { Schema } from '../../lib/schema.js';
import { credentialHeaders, forgetRejected } from '../../lib/credentials.js';

/** What a stream asks for (the OpenAI speech request's fields the page sets). */
export type StreamRequest = Pick<Schema<'SpeechRequest'>, 'input' | 'voice' | 'speed'>;

/** The rate limit a response reports (RateLimit-* headers), when it does. */
export interface RateLimitHeaders {
  readonly limit: number;
  readonly remaining: number;
  readonly resetSec: number;
}

/** The MSE type of the stream. */
const MP3 = 'audio/mpeg';

/** The RateLimit-* headers of `res`, or undefined without them. */
export function rateLimitOf(headers: Headers): RateLimitHeaders | undefined {
  const limit = Number(headers.get('ratelimit-limit'));
  const remaining = Number(headers.get('ratelimit-remaining'));
  if (!headers.has('ratelimit-limit') || !Number.isFinite(limit) || !Number.isFinite(remaining)) return undefined;
  return { limit, remaining, resetSec: Number(headers.get('ratelimit-reset') ?? 0) || 0 };
}

/** The ApiError of an error answer in OpenAI's shape (the /v1/audio/* operations). */
export async function openAiErrorOf(res: Response): Promise<ApiError> {
  let code = `HTTP_${res.status}`;
  let message = res.statusText;
  try {
    const body = (await res.json()) as Partial<Schema<'OpenAIError'>>;
    if (body.error?.platform_code) code = body.error.platform_code;
    if (body.error?.message) message = body.error.message;
  } catch {
    // Not JSON: keep the status.
  }
  return apiErrorOf(res, code, message);
}

function waitUpdate(buffer: SourceBuffer): Promise<void> {
  return new Promise((resolve, reject) => {
    buffer.addEventListener('updateend', () => resolve(), { once: true });
    buffer.addEventListener('error', () => reject(new Error('The browser could not decode the stream.')), { once: true });
  });
}

/** True when this browser can play an mp3 stream through Media Source Extensions. */
export function canStream(): boolean {
  return typeof MediaSource !== 'undefined' && MediaSource.isTypeSupported(MP3);
}

/**
 * Streams the speech of `req` into `audio` and starts playing it as soon as the first chunk is
 * in. Calls `onHeaders` with the rate limit once the response starts; resolves when the whole
 * response is in (the audio may still be playing). Throws ApiError for an error answer.
 */
export async function streamSpeech(audio: HTMLAudioElement, req: StreamRequest, onHeaders: (rate: RateLimitHeaders | undefined) => void, signal?: AbortSignal): Promise<void> {
  delete audio.dataset['playingAt'];
  delete audio.dataset['responseDoneAt'];
  audio.addEventListener('playing', () => (audio.dataset['playingAt'] = String(performance.now())), { once: true });
  const res = await fetch('/v1/audio/speech', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: MP3, ...credentialHeaders('apiKey') },
    body: JSON.stringify({ model: 'tts-1', input: req.input, voice: req.voice, response_format: 'mp3', speed: req.speed, stream_format: 'audio' } satisfies Schema<'SpeechRequest'>),
    signal,
  });
  if (res.status === 401) forgetRejected('apiKey');
  if (!res.ok || !res.body) throw await openAiErrorOf(res);
  onHeaders(rateLimitOf(res.headers));
  const media = new MediaSource();
  const previous = audio.src;
  audio.src = URL.createObjectURL(media);
  if (previous.startsWith('blob:')) URL.revokeObjectURL(previous);
  await new Promise<void>((resolve) => media.addEventListener('sourceopen', () => resolve(), { once: true }));
  const buffer = media.addSourceBuffer(MP3);
  const reader = res.body.getReader();
  // The network is read on its own, so the end of the response is noted when it happens, not
  // when the SourceBuffer has caught up.
  const pending: Uint8Array[] = [];
  let finished = false;
  let wake: (() => void) | undefined;
  let failure: unknown;
  const reading = (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        audio.dataset['responseDoneAt'] = String(performance.now());
        finished = true;
      } else if (value.byteLength > 0) {
        pending.push(value);
      }
      wake?.();
      if (done) return;
    }
  })().catch((err: unknown) => {
    failure = err;
    finished = true;
    wake?.();
  });
  let started = false;
  while (!finished || pending.length > 0) {
    if (pending.length === 0) {
      await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
      continue;
    }
    const chunks = pending.splice(0);
    const chunk = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
    let at = 0;
    for (const c of chunks) {
      chunk.set(c, at);
      at += c.byteLength;
    }
    const appended = waitUpdate(buffer);
    buffer.appendBuffer(chunk);
    await appended;
    if (!started) {
      started = true;
      // Autoplay may be refused without a gesture; the controls stay there to start it.
      audio.play().catch(() => undefined);
    }
  }
  await reading;
  if (failure !== undefined) throw failure;
  if (media.readyState === 'open') media.endOfStream();
}
