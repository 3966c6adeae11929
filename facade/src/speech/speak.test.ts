import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { JobOwnerKind, JobState, type Job, type JobSpec } from '@tts/proto/scheduler';
import { AudioEncoding, ContextOutcome, NodeState, type InteractiveRequest, type InteractiveResponse, type InteractiveStart, type NodeStatusReport, type SynthesisMetrics, type SynthesizeRequest, type SynthesizeResponse, type Voice } from '@tts/proto/synthesis';
import { TtsError, type InteractiveCall, type LexiconEntry } from '@tts/common';
import type { ClusterSnapshot } from '../cluster/cluster.js';
import type { StudioPreset } from '../data/index.js';
import type { QuotaStatus } from '../identity/index.js';
import type { JobOwner } from '../identity/owner.js';
import { TIERS } from '../identity/tiers.js';
import type { Caller, StudioCaller } from '../middleware/access.js';
import type { StudioPrincipal } from '../studio/accounts.js';
import type { Delivered, MeteredRequest } from './metering.js';
import { SpeechSession, type SpeechSessionEvent } from './interactive.js';
import { Speech, type SpeechServices, type SpokenFile } from './speak.js';
import { openAiSettingsOf, ttsSettingsOf, webSettingsOf, type FieldNames, type SpeakRequest } from './speech-request.js';
import type { SynthesisStream } from './synthesis.js';

// Callers ----------------------------------------------------------------------------------------

const pro = TIERS.find((t) => t.name === 'pro')!;
const at = new Date(0);
const keyCaller: Caller = {
  method: 'api_key',
  subject: 'key:k1',
  rateProfile: 'api_key',
  key: {
    tier: pro,
    ratePerMinute: 360,
    record: { keyId: 'k1', prefix: 'tts_k1', name: 'k1', tier: 'pro', disabled: false, dailyCharQuota: null, monthlyCharQuota: null, rateLimitPerMinute: null, createdAt: at, updatedAt: at },
  },
};
const browserCaller: Caller = { method: 'challenge', subject: 'pass:p1', rateProfile: 'challenge', pass: { passId: 'p1', expiresUnix: 0 } };
const principal: StudioPrincipal = {
  sessionId: 's1',
  vip: false,
  expiresAt: at,
  absoluteExpiresAt: at,
  user: { userId: 'usr_1', kind: 'registered', username: 'ann', email: null, passwordHash: null, role: 'user', vipUntil: null, disabled: false, createdAt: at, updatedAt: at, lastLoginAt: null },
};
const studioCaller: StudioCaller = { method: 'studio', principal, rateProfile: 'studio', subject: 'studio:usr_1' };

// Fakes of the collaborators, behind the parts of their interfaces the use case uses --------------

const voice = (id: string, gender: string): Voice => ({ id, name: id, engine: id.split(':')[0]!, language: 'en-US', languages: ['en-US'], gender, sampleRate: 16000, quality: 'medium', loaded: true, description: '' });

function node(cloning: boolean): NodeStatusReport {
  return {
    nodeId: 'n1', address: '127.0.0.1:1', state: NodeState.NODE_STATE_READY, queueDepth: 0, inFlight: 0, realTimeFactor: 0, secondsPerChar: 0, loadedVoices: [], engines: [], capacity: 1,
    queuedWorkSeconds: 0, version: '', startedUnixMs: 0, warmup: undefined, unloadedVoices: [], sessions: 0, maxSessions: 128, analysis: [{ name: 'cloning', available: cloning, reason: cloning ? '' : 'models missing', missingModels: [] }],
  };
}

const metrics = (audioSeconds: number): SynthesisMetrics => ({ characters: 3, sentences: 1, audioSeconds, computeSeconds: 0.1, realTimeFactor: 0.1, timeToFirstAudioMs: 5, queueMs: 0, nodeId: 'n1', nodeMs: 10, loadMs: 0 });

/** One metering run as the fake saw it. */
interface Run {
  readonly caller: Caller;
  readonly req: MeteredRequest;
  outcome?: 'refused' | 'ok' | 'error';
  audioSeconds?: number;
  /** Characters metered when they differ from the request's (a session's). */
  characters?: number;
  code?: string;
}

interface World {
  readonly speech: Speech;
  readonly runs: Run[];
  readonly synthesized: SynthesizeRequest[];
  readonly streamed: SynthesizeRequest[];
  /** Sessions opened, and the messages each sent the node. */
  readonly sessions: { start: InteractiveStart; sent: InteractiveRequest[] }[];
  readonly submitted: { spec: JobSpec; owner: JobOwner; requestId: string }[];
  readonly pending: [string, string][];
  readonly lexiconAsked: (string | undefined)[];
  /** The body field names each node call was given (for its errors). */
  readonly fields: FieldNames[];
  snapshots: number;
}

function world(options: { presets?: StudioPreset[]; lexicon?: LexiconEntry[]; cloning?: boolean; voices?: Voice[] } = {}): World {
  const snapshot: ClusterSnapshot = {
    nodes: [node(options.cloning ?? true)],
    ready: [node(options.cloning ?? true)],
    voices: options.voices ?? [voice('flite:slt', 'female'), voice('flite:rms', 'male'), voice('espeak:en-us', 'male')],
    engines: ['espeak', 'flite'],
    knownEngines: ['espeak', 'flite'],
    fetchedAtMs: 0,
  };
  const w: Omit<World, 'speech'> = { runs: [], synthesized: [], streamed: [], sessions: [], submitted: [], pending: [], lexiconAsked: [], fields: [], snapshots: 0 };
  const quota: QuotaStatus = { stage: 'ok', daily: { used: 0, limit: 10, remaining: 10, resetUnix: 0 }, monthly: { used: 0, limit: 10, remaining: 10, resetUnix: 0 } } as unknown as QuotaStatus;
  const services: SpeechServices = {
    defaultVoice: 'flite:slt',
    presets: {
      get: async (p, presetId) => {
        const found = (options.presets ?? []).find((x) => x.presetId === presetId && x.userId === p.user.userId);
        if (!found) throw new TtsError('STUDIO_PRESET_NOT_FOUND');
        return found;
      },
    },
    lexicons: {
      forSpeech: async (_caller, presetId) => {
        w.lexiconAsked.push(presetId);
        return options.lexicon ?? [];
      },
    },
    cluster: {
      snapshot: async () => {
        w.snapshots++;
        return snapshot;
      },
    },
    references: {
      audio: async (owner, referenceId) => {
        if (owner !== 'k1' || referenceId !== 'ref_mine0001') throw new TtsError('REFERENCE_NOT_FOUND');
        return { record: { referenceId, filename: 'mine.wav', passed: true, analysis: {} }, audio: Buffer.from('RIFF') } as unknown as Awaited<ReturnType<SpeechServices['references']['audio']>>;
      },
    },
    // As Metering.run: the precheck, then the caller's limits, then the synthesis; every outcome recorded.
    metering: {
      run: async (caller, req, synthesize, precheck) => {
        const run: Run = { caller, req };
        w.runs.push(run);
        try {
          precheck?.();
        } catch (err) {
          Object.assign(run, { outcome: 'refused', code: (err as TtsError).code });
          throw err;
        }
        const report = (d: Delivered): void => void Object.assign(run, { audioSeconds: d.audioSeconds, characters: d.characters });
        try {
          report(await synthesize(caller.method === 'api_key' ? quota : undefined, report));
          run.outcome = 'ok';
        } catch (err) {
          Object.assign(run, { outcome: 'error', code: err instanceof TtsError ? err.code : 'INTERNAL_ERROR' });
          throw err;
        }
      },
    },
    gateway: {
      synthesize: async (req, fields) => {
        w.synthesized.push(req);
        w.fields.push(fields);
        const response: SynthesizeResponse = { audio: Buffer.from('RIFF'), encoding: req.speech!.encoding, sampleRate: 16000, voice: req.speech!.voice || 'flite:slt', engine: 'flite', contentType: 'audio/wav', metrics: metrics(1.5), clone: undefined, words: [] };
        return { response, nodeId: 'n1' };
      },
      stream: async (req, fields) => {
        w.streamed.push(req);
        w.fields.push(fields);
        const chunks = [{ data: Buffer.from('ID3'), sequence: 1, info: undefined, metrics: undefined, last: false, words: [] }, { data: Buffer.alloc(0), sequence: 2, info: undefined, metrics: metrics(2.25), last: true, words: [] }];
        return { info: { encoding: req.speech!.encoding, sampleRate: 24000, voice: req.speech!.voice, engine: 'flite', contentType: 'audio/mpeg' }, nodeId: 'n1', chunks: (async function* () { yield* chunks; })() };
      },
      // A node session that answers each context's end with its audio and final message, a cancel with its final message.
      interactive: async (start, fields) => {
        w.fields.push(fields);
        const sent: InteractiveRequest[] = [];
        w.sessions.push({ start, sent });
        const out: InteractiveResponse[] = [];
        let ended = false;
        let wake = (): void => undefined;
        const finalOf = (contextId: string, outcome: ContextOutcome, spoken: number, inSynthesis: number): InteractiveResponse => ({
          message: { $case: 'final', value: { contextId, outcome, charactersSpoken: spoken, charactersInSynthesis: inSynthesis, charactersDropped: 0, metrics: metrics(spoken / 10) } },
        });
        const textOf = (contextId: string): number => sent.reduce((n, r) => n + (r.message?.$case === 'text' && r.message.value.contextId === contextId ? r.message.value.text.length : 0), 0);
        const call: InteractiveCall = {
          started: { info: { encoding: start.speech!.encoding, sampleRate: 16000, voice: start.speech!.voice, engine: 'flite', contentType: 'audio/wav' }, nodeId: 'n1', maxContexts: 5, maxBufferedChars: 5000 },
          write: async (r) => {
            sent.push(r);
            const m = r.message;
            if (m?.$case === 'end') out.push({ message: { $case: 'audio', value: { contextId: m.value.contextId, data: Buffer.from('RIFF'), words: [{ word: 'hi', startSec: 0, endSec: 0.3 }], sequence: 0 } } }, finalOf(m.value.contextId, ContextOutcome.CONTEXT_OUTCOME_COMPLETED, textOf(m.value.contextId), 0));
            if (m?.$case === 'cancel') out.push(finalOf(m.value.contextId, ContextOutcome.CONTEXT_OUTCOME_CANCELLED, 0, 7));
            wake();
          },
          end: () => {
            ended = true;
            wake();
          },
          cancel: () => {
            ended = true;
            wake();
          },
          responses: (async function* () {
            for (;;) {
              const next = out.shift();
              if (next) yield next;
              else if (ended) return;
              else await new Promise<void>((resolve) => (wake = resolve));
            }
          })(),
        };
        return new SpeechSession(call);
      },
    },
    jobs: {
      submit: async (spec, owner, requestId) => {
        w.submitted.push({ spec, owner, requestId });
        return { jobId: 'job_1', state: JobState.JOB_STATE_QUEUED, spec } as Job;
      },
    },
    jobUsage: {
      submitted: async (requestId, jobId) => {
        w.pending.push([requestId, jobId]);
      },
    },
  };
  return Object.assign(w, { speech: new Speech(services) });
}

const signal = new AbortController().signal;
const openAi = (input: string, voiceName = 'alloy', model = 'tts-1'): SpeakRequest => ({ requestId: 'req_1', endpoint: 'POST /v1/audio/speech', text: input, settings: openAiSettingsOf({ model, input, voice: voiceName }) });
const tts = (body: Parameters<typeof ttsSettingsOf>[0], endpoint = 'POST /api/tts'): SpeakRequest => ({ requestId: 'req_2', endpoint, text: body.text, settings: ttsSettingsOf(body) });
const web = (form: Parameters<typeof webSettingsOf>[0]): SpeakRequest => ({ requestId: 'req_3', endpoint: 'POST /api/web/jobs/tts', text: form.text, settings: webSettingsOf(form) });
const owner: JobOwner = { id: 'k1', kind: JobOwnerKind.JOB_OWNER_KIND_API_KEY, tier: 'pro' };

/** Drains a stream as a presenter would; the final metrics. */
async function drain(stream: SynthesisStream): Promise<SynthesisMetrics | undefined> {
  let last: SynthesisMetrics | undefined;
  for await (const chunk of stream.chunks) last = chunk.metrics ?? last;
  return last;
}

const refusedWith = (code: string, loc?: readonly (string | number)[]) => (e: unknown): boolean => {
  assert.ok(e instanceof TtsError, String(e));
  assert.equal(e.code, code);
  if (loc !== undefined) assert.deepEqual(e.loc, loc);
  return true;
};

// ------------------------------------------------------------------------------------------------

describe('speak: a stream of chunks (POST /v1/audio/speech)', () => {
  it('resolves the OpenAI voice once, converts the format once, and routes under the caller\'s tenant and weight inside metering', async () => {
    const w = world();
    const events: string[] = [];
    await w.speech.speak(keyCaller, openAi('Hi.'), {
      kind: 'stream',
      signal,
      admitted: (quota) => events.push(`admitted ${quota?.stage ?? 'none'}`),
      deliver: async (stream) => {
        events.push('deliver');
        return drain(stream);
      },
    });
    assert.deepEqual(events, ['admitted ok', 'deliver']);
    const [sent] = w.streamed;
    assert.equal(sent?.speech?.voice, 'flite:slt', 'alloy is a female voice: flite:slt');
    assert.equal(sent?.speech?.engine, '');
    assert.equal(sent?.speech?.encoding, AudioEncoding.AUDIO_ENCODING_MP3);
    assert.equal(sent?.tenantId, 'key:k1');
    assert.equal(sent?.tenantWeight, pro.concurrentRequests);
    assert.equal(sent?.requestId, 'req_1');
    assert.equal(w.snapshots, 1, 'the cluster is read once for the model and the voice');
    assert.deepEqual([w.fields[0]?.text, w.fields[0]?.encoding], ['input', 'response_format'], 'node errors name the OpenAI fields');
    assert.deepEqual(w.runs.map((r) => ({ ...r.req, outcome: r.outcome, audioSeconds: r.audioSeconds })), [
      { endpoint: 'POST /v1/audio/speech', requestId: 'req_1', characters: 3, textField: 'input', mode: null, consentConfirmed: null, synchronous: true, outcome: 'ok', audioSeconds: 2.25 },
    ]);
  });

  it('a client gone before the end is metered as TTS_CANCELLED', async () => {
    const w = world();
    await assert.rejects(w.speech.speak(keyCaller, openAi('Hi.'), { kind: 'stream', signal, deliver: async () => undefined }), refusedWith('TTS_CANCELLED'));
    assert.equal(w.runs[0]?.outcome, 'error');
    assert.equal(w.runs[0]?.code, 'TTS_CANCELLED');
  });

  it('refuses empty text and an unknown model before anything is metered or synthesized, naming the OpenAI fields', async () => {
    const w = world();
    const output = { kind: 'stream', signal, deliver: drain } as const;
    await assert.rejects(w.speech.speak(keyCaller, openAi('  '), output), refusedWith('TTS_TEXT_EMPTY', ['body', 'input']));
    await assert.rejects(w.speech.speak(keyCaller, openAi('Hi.', 'alloy', 'no-such-model'), output), refusedWith('TTS_MODEL_NOT_FOUND', ['body', 'model']));
    assert.equal(w.runs.length, 0);
    assert.equal(w.streamed.length, 0);
  });

  it('a model naming an engine picks the OpenAI voice within it, and the caller\'s lexicon rides along', async () => {
    const w = world({ lexicon: [{ word: 'GIF', ipa: 'dʒɪf', caseSensitive: false }] });
    await w.speech.speak(keyCaller, openAi('A GIF.', 'ash', 'espeak-ng'), { kind: 'stream', signal, deliver: drain });
    assert.equal(w.streamed[0]?.speech?.engine, 'espeak');
    assert.equal(w.streamed[0]?.speech?.voice, 'espeak:en-us');
    assert.deepEqual(w.streamed[0]?.speech?.lexicon.map((e) => e.word), ['GIF']);
    assert.deepEqual(w.lexiconAsked, [undefined]);
  });
});

describe('speak: a whole file (POST /api/tts)', () => {
  it('hands the node\'s answer to the presenter and meters its seconds; a voice id passes through without a cluster read', async () => {
    const w = world();
    const files: SpokenFile[] = [];
    await w.speech.speak(keyCaller, tts({ text: 'Hello.', voice: 'flite:rms', format: 'flac', speed: 1.2 }), { kind: 'file', signal, deliver: (f) => void files.push(f) });
    assert.equal(files.length, 1);
    assert.equal(files[0]?.nodeId, 'n1');
    assert.ok((files[0]?.gatewayMs ?? -1) >= 0);
    assert.equal(w.synthesized[0]?.speech?.voice, 'flite:rms');
    assert.equal(w.synthesized[0]?.speech?.encoding, AudioEncoding.AUDIO_ENCODING_FLAC);
    assert.equal(w.synthesized[0]?.speech?.speed, 1.2);
    assert.equal(w.snapshots, 0);
    assert.equal(w.runs[0]?.audioSeconds, 1.5);
    assert.equal(w.runs[0]?.req.mode, 'auto');
    assert.equal(w.runs[0]?.req.textField, 'text');
  });

  it('clones an uploaded clip, with consent checked by metering first (refused and audited without it)', async () => {
    const w = world();
    const upload = { field: 'ref_audio', filename: 'me.wav', mimeType: 'audio/wav', path: new URL(import.meta.url).pathname, sizeBytes: 10 };
    const asked = (consent: 'true' | 'false'): SpeakRequest => ({ requestId: 'req_4', endpoint: 'POST /api/tts', text: 'Hi.', settings: ttsSettingsOf({ text: 'Hi.', mode: 'clone', consent_confirmed: consent }, upload) });
    await assert.rejects(w.speech.speak(browserCaller, asked('false'), { kind: 'file', signal, deliver: () => undefined }), refusedWith('CONSENT_REQUIRED'));
    assert.deepEqual({ outcome: w.runs[0]?.outcome, mode: w.runs[0]?.req.mode, consent: w.runs[0]?.req.consentConfirmed }, { outcome: 'refused', mode: 'clone', consent: false });
    assert.equal(w.synthesized.length, 0);
    // An uploaded clip needs no owner: the browser check may clone with it.
    await w.speech.speak(browserCaller, asked('true'), { kind: 'file', signal, deliver: () => undefined });
    assert.equal(w.synthesized[0]?.speech?.clone?.referenceFilename, 'me.wav');
    assert.ok((w.synthesized[0]?.speech?.clone?.referenceAudio.length ?? 0) > 0);
  });

  it('refuses a clone without a reference, a stored clip for a caller that owns none, and cloning where no node can', async () => {
    const w = world({ cloning: false });
    const file = { kind: 'file', signal, deliver: () => undefined } as const;
    await assert.rejects(w.speech.speak(keyCaller, tts({ text: 'Hi.', mode: 'clone', consent_confirmed: true }), file), refusedWith('VALIDATION_FAILED', ['body', 'reference_id']));
    await assert.rejects(w.speech.speak(browserCaller, tts({ text: 'Hi.', reference_id: 'ref_mine0001', consent_confirmed: true }), file), refusedWith('REFERENCE_NOT_FOUND', ['body', 'reference_id']));
    assert.equal(w.runs.length, 0, 'refused before metering');
    await assert.rejects(w.speech.speak(keyCaller, tts({ text: 'Hi.', reference_id: 'ref_mine0001', consent_confirmed: true }), file), refusedWith('ANALYSIS_UNAVAILABLE'));
    assert.equal(w.runs[0]?.outcome, 'error');
    assert.equal(w.synthesized.length, 0);
  });

  it('a preset fills what the request leaves out (voice, speed, format, its clip) and adds its lexicon; what the request names wins', async () => {
    const preset: StudioPreset = { presetId: 'pst_1', userId: 'usr_1', name: 'p', voice: 'flite:rms', engine: 'flite', speed: 0.8, format: 'mp3', sampleText: null, notes: null, referenceId: null, forkedFromShareId: null, forkedFromPresetId: null, createdAt: at, updatedAt: at };
    const w = world({ presets: [preset] });
    const file = { kind: 'file', signal, deliver: () => undefined } as const;
    await w.speech.speak(studioCaller, tts({ text: 'Hi.', preset_id: 'pst_1' }), file);
    await w.speech.speak(studioCaller, tts({ text: 'Hi.', preset_id: 'pst_1', voice: 'espeak:en-us', format: 'wav' }), file);
    assert.deepEqual(w.synthesized.map((r) => [r.speech?.voice, r.speech?.engine, r.speech?.speed, r.speech?.encoding]), [
      ['flite:rms', 'flite', 0.8, AudioEncoding.AUDIO_ENCODING_MP3],
      ['espeak:en-us', '', 0.8, AudioEncoding.AUDIO_ENCODING_WAV],
    ]);
    assert.deepEqual(w.lexiconAsked, ['pst_1', 'pst_1']);
    assert.equal(w.runs[0]?.req.characters, 3);
    await assert.rejects(w.speech.speak(keyCaller, tts({ text: 'Hi.', preset_id: 'pst_1' }), file), refusedWith('STUDIO_SESSION_MISSING', ['body', 'preset_id']));
    await assert.rejects(w.speech.speak(studioCaller, tts({ text: 'Hi.', preset_id: 'pst_other' }), file), refusedWith('STUDIO_PRESET_NOT_FOUND', ['body', 'preset_id']));
    assert.equal(w.lexiconAsked.length, 2, 'a refused preset goes no further');
  });
});

describe('speak: a queued job', () => {
  const job = (deliver: (j: Job) => void = () => undefined) => ({ kind: 'job', owner, deliver }) as const;

  it('refuses a voice no ready node has now (the job would fail later), naming the body field, before metering', async () => {
    const w = world();
    await assert.rejects(w.speech.speak(keyCaller, tts({ text: 'Hi.', voice: 'flite:nobody' }, 'POST /api/jobs/tts'), job()), refusedWith('TTS_VOICE_NOT_FOUND', ['body', 'voice']));
    assert.equal(w.runs.length, 0);
    assert.equal(w.submitted.length, 0);
  });

  it('submits the spec with its mode and consent under the owner, notes the job for usage, meters it asynchronously, and hands it on', async () => {
    const w = world();
    const delivered: Job[] = [];
    await w.speech.speak(keyCaller, tts({ text: 'Hi there.', voice: 'slt' }, 'POST /api/jobs/tts'), job((j) => void delivered.push(j)));
    assert.equal(w.submitted.length, 1);
    const { spec, owner: sentOwner, requestId } = w.submitted[0]!;
    assert.equal(spec.speech?.voice, 'slt', 'a bare name that some voice ends with passes');
    assert.equal(spec.mode, 'auto');
    assert.equal(spec.consentConfirmed, false);
    assert.deepEqual(sentOwner, owner);
    assert.equal(requestId, 'req_2');
    assert.deepEqual(w.pending, [['req_2', 'job_1']]);
    assert.equal(delivered[0]?.jobId, 'job_1');
    assert.deepEqual({ synchronous: w.runs[0]?.req.synchronous, audioSeconds: w.runs[0]?.audioSeconds, endpoint: w.runs[0]?.req.endpoint }, { synchronous: false, audioSeconds: 0, endpoint: 'POST /api/jobs/tts' });
  });

  it('a clone job carries the caller\'s stored clip and records mode clone', async () => {
    const w = world();
    await w.speech.speak(keyCaller, web({ text: 'Hi.', reference_id: 'ref_mine0001', consent_confirmed: 'true' }), job());
    const { spec } = w.submitted[0]!;
    assert.equal(spec.mode, 'clone');
    assert.equal(spec.consentConfirmed, true);
    assert.equal(spec.speech?.clone?.referenceId, 'ref_mine0001');
    assert.equal(w.runs[0]?.req.mode, 'clone');
  });

  it('a web form\'s preset supplies its voice and speed, not its format', async () => {
    const preset: StudioPreset = { presetId: 'pst_1', userId: 'usr_1', name: 'p', voice: 'flite:rms', engine: 'flite', speed: 1.3, format: 'mp3', sampleText: null, notes: null, referenceId: null, forkedFromShareId: null, forkedFromPresetId: null, createdAt: at, updatedAt: at };
    const w = world({ presets: [preset] });
    await w.speech.speak(studioCaller, web({ text: 'Hi.', preset_id: 'pst_1' }), job());
    await w.speech.speak(studioCaller, web({ text: 'Hi.', preset_id: 'pst_1', voice: 'flite:slt', speed: '2' }), job());
    assert.deepEqual(w.submitted.map((s) => [s.spec.speech?.voice, s.spec.speech?.engine, s.spec.speech?.speed, s.spec.speech?.encoding]), [
      ['flite:rms', '', 1.3, AudioEncoding.AUDIO_ENCODING_WAV],
      ['flite:slt', '', 2, AudioEncoding.AUDIO_ENCODING_WAV],
    ]);
  });
});

describe('speak: an interactive session (the streaming adapters)', () => {
  /** An adapter's loop: sends `script`, reads the events to their end. */
  const adapter = (script: (session: SpeechSession) => Promise<void>, events: SpeechSessionEvent[]) => async (session: SpeechSession): Promise<void> => {
    const reading = (async () => {
      for await (const e of session.events()) events.push(e);
    })();
    await script(session);
    session.close();
    await reading;
  };

  it('takes no text up front, resolves the voice once, routes under the caller\'s tenant, and meters what the contexts spoke', async () => {
    const w = world({ lexicon: [{ word: 'GIF', respelling: 'jif', caseSensitive: true }] });
    const events: SpeechSessionEvent[] = [];
    const admitted: string[] = [];
    await w.speech.speak(keyCaller, { requestId: 'req_s', endpoint: 'WS /v1/text-to-speech/{voice_id}/multi-stream-input', text: '', settings: openAiSettingsOf({ model: 'tts-1', input: '', voice: 'nova', response_format: 'pcm' }) }, {
      kind: 'session',
      signal,
      admitted: (quota) => admitted.push(quota?.stage ?? 'none'),
      deliver: adapter(async (session) => {
        assert.equal(session.nodeId, 'n1');
        assert.equal(session.maxContexts, 5);
        await session.pushText('a', 'Hello there. ');
        await session.pushText('b', 'Interrupted');
        await session.end('a');
        await session.cancel('b');
      }, events),
    });
    assert.deepEqual(admitted, ['ok']);
    const [opened] = w.sessions;
    assert.equal(opened?.start.tenantId, 'key:k1', 'the caller\'s tenant (its subject)');
    assert.equal(opened?.start.tenantWeight, pro.concurrentRequests);
    assert.equal(opened?.start.speech?.text, '');
    assert.equal(opened?.start.speech?.voice, 'flite:slt', 'the OpenAI voice resolved once, at the start');
    assert.equal(opened?.start.speech?.encoding, AudioEncoding.AUDIO_ENCODING_PCM);
    assert.deepEqual(opened?.start.speech?.lexicon.map((e) => e.word), ['GIF']);
    assert.deepEqual(events.map((e) => `${e.kind} ${e.contextId}`), ['audio a', 'final a', 'final b']);
    const finals = events.filter((e) => e.kind === 'final');
    assert.deepEqual(finals.map((f) => f.kind === 'final' && f.outcome), ['completed', 'cancelled']);
    // Spoken ("Hello there. ", 13) plus in synthesis at the cancel (7).
    assert.equal(w.runs[0]?.outcome, 'ok');
    assert.equal(w.runs[0]?.req.characters, 0, 'nothing known up front');
    assert.equal(w.runs[0]?.characters, 20);
    assert.equal(w.runs[0]?.req.synchronous, false, 'a session holds a session place (its adapter takes it), not one of the caller\'s synchronous places');
  });

  it('a session that fails is metered with what it spoke; a clone is refused before anything opens', async () => {
    const w = world();
    const failing = w.speech.speak(keyCaller, { requestId: 'req_f', endpoint: 'WS test', text: '', settings: openAiSettingsOf({ model: 'tts-1', input: '', voice: 'alloy' }) }, {
      kind: 'session',
      signal,
      deliver: async (session) => {
        await session.pushText('a', 'Spoken.');
        await session.end('a');
        for await (const e of session.events()) if (e.kind === 'final') throw new TtsError('TTS_ENGINE_FAILED', 'the adapter lost its socket');
      },
    });
    await assert.rejects(failing, refusedWith('TTS_ENGINE_FAILED'));
    assert.equal(w.runs[0]?.outcome, 'error');
    assert.equal(w.runs[0]?.characters, 'Spoken.'.length);
    await assert.rejects(
      w.speech.speak(keyCaller, { requestId: 'req_c', endpoint: 'WS test', text: '', settings: { ...ttsSettingsOf({ text: '' }), mode: 'clone', referenceId: 'ref_mine0001' } }, { kind: 'session', signal, deliver: async () => undefined }),
      refusedWith('TTS_MODE_UNSUPPORTED'),
    );
    assert.equal(w.sessions.length, 1, 'no session opened for the clone');
  });
});
