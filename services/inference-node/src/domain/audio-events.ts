/**
 * The node's recent audio pipeline events: one per synthesis (engine, voice, durations, batch,
 * real-time factor, outcome), kept in a bounded ring for the facade's debug view
 * (GET /api/debug/audio-logs through the RecentAudioEvents RPC).
 */
import type { AudioEvent } from '@tts/proto/synthesis';

/** Events kept per node. */
export const AUDIO_EVENTS_KEPT = 500;

/** A bounded, newest-last ring of audio events. */
export class AudioEventLog {
  private readonly events: AudioEvent[] = [];

  constructor(readonly nodeId: string, private readonly capacity = AUDIO_EVENTS_KEPT) {}

  /** Adds an event (node id filled in); the oldest is dropped past the capacity. */
  record(event: Omit<AudioEvent, 'nodeId'>): void {
    this.events.push({ ...event, nodeId: this.nodeId });
    if (this.events.length > this.capacity) this.events.splice(0, this.events.length - this.capacity);
  }

  /** The newest `limit` events (0 = all), newest first. */
  recent(limit = 0): AudioEvent[] {
    const n = limit <= 0 ? this.events.length : Math.min(limit, this.events.length);
    return this.events.slice(this.events.length - n).reverse();
  }
}
