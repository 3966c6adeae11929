/**
 * Live mode's playback: 16-bit PCM frames played as they arrive through the Web Audio API, each
 * frame an AudioBufferSourceNode started where the previous one ends (on the AudioContext's
 * clock), so frames join without gaps while the audio stays ahead. The player remembers where each
 * frame of a context sits on that clock, which maps the server's word timings (seconds into the
 * context's audio) to what is heard now. `stop()` silences everything at once.
 */

/** Where the audio being heard now is. */
export interface Position {
  readonly contextId: string;
  /** Seconds into the context's audio. */
  readonly seconds: number;
}

interface Segment {
  readonly contextId: string;
  /** Seconds into the context's audio where the frame starts. */
  readonly offset: number;
  /** AudioContext time the frame starts playing. */
  readonly at: number;
  readonly duration: number;
}

/** A first frame (or one after the audio ran dry) starts this far ahead, so it is not cut at its start. */
const LEAD_SEC = 0.05;
/** Segments that ended this long ago are forgotten. */
const KEEP_SEC = 2;

/** Plays PCM frames of several contexts one after another. */
export class LivePlayer {
  private readonly audio: AudioContext;
  private readonly out: GainNode;
  private readonly analyser: AnalyserNode;
  private readonly samples: Float32Array<ArrayBuffer>;
  private readonly sources = new Set<AudioBufferSourceNode>();
  private segments: Segment[] = [];
  /** Seconds of audio scheduled so far per context. */
  private readonly scheduled = new Map<string, number>();
  private nextAt = 0;

  constructor() {
    this.audio = new AudioContext({ latencyHint: 'interactive' });
    this.out = this.audio.createGain();
    this.analyser = this.audio.createAnalyser();
    this.analyser.fftSize = 1024;
    this.samples = new Float32Array(this.analyser.fftSize);
    this.out.connect(this.analyser);
    this.analyser.connect(this.audio.destination);
  }

  /** Starts the clock (browsers start an AudioContext suspended until a gesture). */
  resume(): Promise<void> {
    return this.audio.state === 'suspended' ? this.audio.resume() : Promise.resolve();
  }

  /** Queues a frame of mono 16-bit samples of `contextId` after everything already queued. */
  play(contextId: string, pcm: Int16Array, sampleRate: number): void {
    if (pcm.length === 0) return;
    const now = this.audio.currentTime;
    if (this.nextAt < now + LEAD_SEC) this.nextAt = now + LEAD_SEC;
    const buffer = this.audio.createBuffer(1, pcm.length, sampleRate);
    const channel = buffer.getChannelData(0);
    for (let i = 0; i < pcm.length; i++) channel[i] = (pcm[i] ?? 0) / 32768;
    const source = this.audio.createBufferSource();
    source.buffer = buffer;
    source.connect(this.out);
    source.onended = () => {
      this.sources.delete(source);
      source.disconnect();
    };
    source.start(this.nextAt);
    this.sources.add(source);
    const offset = this.scheduled.get(contextId) ?? 0;
    this.segments = this.segments.filter((s) => s.at + s.duration > now - KEEP_SEC);
    this.segments.push({ contextId, offset, at: this.nextAt, duration: buffer.duration });
    this.scheduled.set(contextId, offset + buffer.duration);
    this.nextAt += buffer.duration;
  }

  /** Where the audio heard now is, or undefined in silence. */
  position(): Position | undefined {
    const now = this.audio.currentTime;
    const s = this.segments.find((x) => x.at <= now && now < x.at + x.duration);
    return s ? { contextId: s.contextId, seconds: s.offset + (now - s.at) } : undefined;
  }

  /** Frames queued or playing. */
  get queued(): number {
    return this.sources.size;
  }

  /** The output's loudness now, 0 (silence) to 1. */
  level(): number {
    this.analyser.getFloatTimeDomainData(this.samples);
    let peak = 0;
    for (const v of this.samples) peak = Math.max(peak, Math.abs(v));
    return Math.min(1, peak);
  }

  /** Silences everything at once: every queued frame is dropped, the one playing cut. */
  stop(): void {
    for (const source of this.sources) {
      source.onended = null;
      source.stop();
      source.disconnect();
    }
    this.sources.clear();
    this.segments = [];
    this.scheduled.clear();
    this.nextAt = 0;
  }

  /** Stops and releases the audio device. */
  async close(): Promise<void> {
    this.stop();
    await this.audio.close();
  }
}
