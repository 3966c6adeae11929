/**
 * The speech use case: every operation that speaks (REST, OpenAI, ElevenLabs, web and studio; whole file,
 * stream or job) tells its story here, in order: the caller's preset, the caller's lexicon, the
 * platform's speech request (text, clone reference, voice: speech-request.ts), then metering
 * (consent, text length, quota, the caller's syntheses in flight; usage and the consent audit
 * whatever the outcome) around admission and routing to a node (synthesis.ts) or the job queue.
 * Handlers read their body into a `SpeakRequest` (speech-request.ts) and present what comes out.
 * An interactive session (output `session`: text arriving in pieces, the protocol adapters) goes
 * through the same story with its settings, once: its text reaches the node later, piece by piece,
 * and is metered when the session ends.
 */
import { performance } from 'node:perf_hooks';
import type { Job } from '@tts/proto/scheduler';
import type { SpeechSpec, SynthesisMetrics, SynthesizeResponse } from '@tts/proto/synthesis';
import { TtsError } from '@tts/common';
import type { Caller } from '../middleware/access.js';
import { tenantOf } from '../middleware/access.js';
import type { ClusterView } from '../cluster/cluster.js';
import type { QuotaStatus } from '../identity/index.js';
import type { JobOwner } from '../identity/owner.js';
import type { JobsGateway } from '../jobs/jobs-gateway.js';
import type { JobUsage } from '../jobs/job-usage.js';
import type { ReferenceService } from '../references/references.js';
import { withPreset } from '../studio/preset-speech.js';
import type { StudioPresets } from '../studio/presets.js';
import { cloneSpecOf, requireConsent } from './clone-request.js';
import type { Lexicons } from './lexicons.js';
import { tenantWeightOf, type Delivered, type Metering } from './metering.js';
import { speechRequestOf, type SpeakRequest, type SpeechSettings } from './speech-request.js';
import type { SynthesisGateway, SynthesisStream } from './synthesis.js';
import type { SpeechSession } from './interactive.js';

/** A whole file as the node answered it. */
export interface SpokenFile {
  readonly response: SynthesizeResponse;
  readonly nodeId: string;
  /** The call to the node as the facade saw it, ms. */
  readonly gatewayMs: number;
}

interface Admitted {
  /**
   * Called once the caller's limits let the request through, before any synthesis, with its
   * quota status (API keys and studio users): an error after it still carries what it set.
   */
  readonly admitted?: (quota: QuotaStatus | undefined) => void;
}

/** The audio as one file (synchronous). */
export interface FileOutput extends Admitted {
  readonly kind: 'file';
  /** Aborted when the client goes away. */
  readonly signal: AbortSignal;
  readonly deliver: (file: SpokenFile) => Promise<void> | void;
}

/** The audio as a stream of chunks, sentence by sentence (synchronous). */
export interface StreamOutput extends Admitted {
  readonly kind: 'stream';
  /** Aborted when the client goes away. */
  readonly signal: AbortSignal;
  /** Delivers the chunks; returns the final metrics, or undefined when the client went away first. */
  readonly deliver: (stream: SynthesisStream) => Promise<SynthesisMetrics | undefined>;
}

/** A queued job, synthesized later by the scheduler. */
export interface JobOutput extends Admitted {
  readonly kind: 'job';
  readonly owner: JobOwner;
  readonly deliver: (job: Job) => Promise<void> | void;
}

/**
 * An interactive session: the text arrives later, in pieces, by context, while audio flows out
 * (the WebSocket and Wyoming adapters). The request's text is empty; its settings hold for every
 * context. Metering counts the characters the session spoke (and those in synthesis when a
 * context was cancelled) when it ends.
 */
export interface SessionOutput extends Admitted {
  readonly kind: 'session';
  /** Aborted when the client goes away: the session is cancelled. */
  readonly signal: AbortSignal;
  /**
   * Runs the session: pushes the client's text, reads `session.events()` to its end (which is
   * what the session's metering is counted from) and resolves when the client is done.
   */
  readonly deliver: (session: SpeechSession) => Promise<void>;
}

/** Where the speech goes. */
export type SpeechOutput = FileOutput | StreamOutput | JobOutput | SessionOutput;

/** What the use case works with (each behind the part of its interface it uses). */
export interface SpeechServices {
  readonly presets: Pick<StudioPresets, 'get'>;
  readonly lexicons: Pick<Lexicons, 'forSpeech'>;
  readonly cluster: Pick<ClusterView, 'snapshot'>;
  readonly references: Pick<ReferenceService, 'audio'>;
  readonly metering: Pick<Metering, 'run'>;
  readonly gateway: Pick<SynthesisGateway, 'synthesize' | 'stream' | 'interactive'>;
  readonly jobs: Pick<JobsGateway, 'submit'>;
  readonly jobUsage: Pick<JobUsage, 'submitted'>;
  /** The platform default voice (what OpenAI voice names fall back to). */
  readonly defaultVoice: string;
}

/** Speaks for every speech operation. */
export class Speech {
  constructor(private readonly services: SpeechServices) {}

  /**
   * Says `request.text` for `caller` into `output`. Throws the request's refusal before anything
   * is synthesized (preset, text, clone, voice, consent, limits: each with its catalogue code), or
   * the synthesis' failure; usage and the consent audit are recorded either way once metering has
   * started.
   */
  async speak(caller: Caller, request: SpeakRequest, output: SpeechOutput): Promise<void> {
    const s = this.services;
    const settings = request.settings.preset === undefined ? request.settings : await withPreset(request.settings, caller, s.presets);
    // A job keeps the lexicon of its submission (stored with its spec).
    const lexicon = await s.lexicons.forSpeech(caller, settings.preset?.id);
    // A job runs later, so its voice must exist now; a session's text comes later.
    const session = output.kind === 'session';
    const { speech, cloning } = await speechRequestOf(caller, request.text, settings, { lexicon, snapshot: () => s.cluster.snapshot(), defaultVoice: s.defaultVoice, mustExist: output.kind === 'job', textInPieces: session });
    if (session && cloning) throw new TtsError('TTS_MODE_UNSUPPORTED', 'Cloning is not available in streaming sessions.', { loc: ['body', 'mode'] });
    const metered = {
      endpoint: request.endpoint,
      requestId: request.requestId,
      characters: request.text.length,
      textField: settings.fields.text ?? 'text',
      mode: cloning ? 'clone' : settings.mode,
      consentConfirmed: settings.consentConfirmed,
      // A session holds a session place instead (realtime/session-limits.ts, taken by its adapter
      // before the handshake): an agent keeps one per conversation, mostly idle.
      synchronous: output.kind === 'file' || output.kind === 'stream',
    };
    await s.metering.run(
      caller,
      metered,
      async (quota, report) => {
        output.admitted?.(quota);
        // A clone carries its reference clip to the node that runs it.
        const spoken = cloning ? { ...speech, clone: await cloneSpecOf(cloning, caller, s) } : speech;
        return this.send(caller, request.requestId, spoken, settings, output, report);
      },
      cloning ? () => requireConsent(settings.consentConfirmed) : undefined,
    );
  }

  /**
   * Sends the speech to a node (admission and routing: the gateway) or the job queue; what was
   * delivered (`report`: what a session delivered so far, should it fail).
   */
  private async send(caller: Caller, requestId: string, speech: SpeechSpec, settings: SpeechSettings, output: SpeechOutput, report: (sofar: Delivered) => void): Promise<Delivered> {
    const s = this.services;
    const routed = { requestId, tenantId: tenantOf(caller), tenantWeight: tenantWeightOf(caller), speech };
    switch (output.kind) {
      case 'file': {
        const called = performance.now();
        const { response, nodeId } = await s.gateway.synthesize(routed, settings.fields, output.signal);
        await output.deliver({ response, nodeId, gatewayMs: performance.now() - called });
        return { audioSeconds: response.metrics?.audioSeconds ?? 0 };
      }
      case 'stream': {
        const metrics = await output.deliver(await s.gateway.stream(routed, settings.fields, output.signal));
        if (!metrics) throw new TtsError('TTS_CANCELLED', 'The client went away before the audio was complete.');
        return { audioSeconds: metrics.audioSeconds };
      }
      case 'session': {
        const session = await s.gateway.interactive(routed, settings.fields, output.signal);
        try {
          await output.deliver(session);
        } finally {
          // Whatever the adapter did, the node's session ends with it (a no-op once it ended).
          session.abort();
          report(session.usage());
        }
        return session.usage();
      }
      case 'job': {
        const mode = speech.clone ? 'clone' : settings.mode ?? 'auto';
        const job = await s.jobs.submit({ speech, mode, consentConfirmed: settings.consentConfirmed ?? false }, output.owner, requestId);
        // Its audio is counted once it ends (jobs/job-usage.ts).
        await s.jobUsage.submitted(requestId, job.jobId);
        await output.deliver(job);
        return { audioSeconds: 0 };
      }
    }
  }
}
