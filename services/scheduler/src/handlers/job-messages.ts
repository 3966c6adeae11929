/** Conversions between job records of the job store and their tts.v1 messages. */
import { JobOwnerKind, JobState, type Job, type JobEvent, type JobResult, type JobSpec } from '@tts/proto/scheduler';
import type { CloneReport } from '@tts/proto/synthesis';
import type { JobEventRecord, JobOwnerKind as StoredOwnerKind, JobRecord, JobResultFields, JobSpecFields, JobState as StoredState } from '../data/jobs.js';
import type { AudioFormat } from '@tts/common/audio';
import { speechOfStored } from '../domain/jobs/job-speech.js';
import { TtsError, encodingOf, formatOf, lexiconOfMessages } from '@tts/common';

const STATES: Readonly<Record<StoredState, JobState>> = {
  queued: JobState.JOB_STATE_QUEUED,
  running: JobState.JOB_STATE_RUNNING,
  retrying: JobState.JOB_STATE_RETRYING,
  completed: JobState.JOB_STATE_COMPLETED,
  failed: JobState.JOB_STATE_FAILED,
  cancelled: JobState.JOB_STATE_CANCELLED,
};

/** Proto state of a stored state. */
export function stateMessage(state: StoredState): JobState {
  return STATES[state];
}

const encodingOfStored = (format: string): ReturnType<typeof encodingOf> => encodingOf(format as AudioFormat);

function specMessage(s: JobSpecFields): JobSpec {
  // A status read does not carry the reference clip back (only its name and stored id).
  return { speech: speechOfStored(s, 0, false), mode: s.mode, consentConfirmed: s.consentConfirmed };
}

/** The JobResult message of a stored result. */
export function resultMessage(r: JobResultFields): JobResult {
  return {
    sha256: r.sha256,
    artifactPath: r.path,
    sizeBytes: r.bytes,
    audioSeconds: r.audioSeconds,
    encoding: encodingOfStored(r.format),
    sampleRate: r.sampleRate,
    contentType: r.contentType,
    voice: r.voice,
    engine: r.engine,
    clone: r.clone ? (r.clone as unknown as CloneReport) : undefined,
    words: (r.words ?? []).map((w) => ({ word: w.word, startSec: w.start, endSec: w.end })),
  };
}

/** The Job message of a record. */
export function jobMessage(j: JobRecord): Job {
  return {
    jobId: j.jobId,
    ownerId: j.ownerId,
    ownerKind: OWNER_KINDS[j.ownerKind],
    tier: j.tier,
    requestId: j.requestId ?? '',
    spec: specMessage(j.spec),
    characters: j.characters,
    state: STATES[j.state],
    progress: j.progress,
    attempts: j.attempts,
    maxAttempts: j.maxAttempts,
    nodeId: j.nodeId ?? '',
    errorCode: j.errorCode ?? '',
    errorMessage: j.errorMessage ?? '',
    createdUnixMs: j.createdAt.getTime(),
    updatedUnixMs: j.updatedAt.getTime(),
    startedUnixMs: j.startedAt?.getTime() ?? 0,
    finishedUnixMs: j.finishedAt?.getTime() ?? 0,
    result: j.result ? resultMessage(j.result) : undefined,
    lastEventId: j.lastEventId,
  };
}

/** The JobEvent message of a stored event. */
export function eventMessage(e: JobEventRecord): JobEvent {
  const p = e.payload;
  return {
    jobId: e.jobId,
    eventId: e.eventId,
    atUnixMs: e.at.getTime(),
    kind: e.kind,
    state: STATES[p.state] ?? JobState.JOB_STATE_UNSPECIFIED,
    progress: p.progress,
    nodeId: p.node_id ?? '',
    errorCode: p.error_code ?? '',
    errorMessage: p.error_message ?? '',
    attempt: p.attempt ?? 0,
    payloadJson: JSON.stringify(p),
  };
}

const OWNER_KINDS: Readonly<Record<StoredOwnerKind, JobOwnerKind>> = {
  api_key: JobOwnerKind.JOB_OWNER_KIND_API_KEY,
  web: JobOwnerKind.JOB_OWNER_KIND_WEB,
  studio: JobOwnerKind.JOB_OWNER_KIND_STUDIO,
};

/** Stored owner kind of a proto one; VALIDATION_FAILED when unspecified (or unknown). */
export function ownerKindOf(kind: JobOwnerKind): StoredOwnerKind {
  const stored = (Object.keys(OWNER_KINDS) as StoredOwnerKind[]).find((k) => OWNER_KINDS[k] === kind);
  if (stored === undefined) throw new TtsError('VALIDATION_FAILED', 'owner_kind must be API_KEY, WEB or STUDIO.', { loc: ['owner_kind'] });
  return stored;
}

/** Stored spec of a proto one; TTS_FORMAT_UNSUPPORTED for an unknown encoding, VALIDATION_FAILED for a bit rate other than the default. */
export function specOf(spec: JobSpec | undefined): JobSpecFields {
  if (!spec) throw new TtsError('VALIDATION_FAILED', 'spec is required.', { loc: ['spec'] });
  const speech = spec.speech;
  if (!speech) throw new TtsError('VALIDATION_FAILED', 'spec.speech is required (a submitter older than 0.6 sends the speech fields in JobSpec itself: upgrade it).', { loc: ['spec', 'speech'] });
  const format = formatOf(speech.encoding);
  if (format === undefined) throw new TtsError('TTS_FORMAT_UNSUPPORTED', undefined, { loc: ['spec', 'speech', 'encoding'] });
  // The job tables keep no bit rate: a job is encoded at its format's default, never silently at another.
  if (speech.bitrateKbps !== 0) throw new TtsError('VALIDATION_FAILED', 'A job is encoded at its format\'s default bit rate: send bitrate_kbps 0.', { loc: ['spec', 'speech', 'bitrate_kbps'] });
  return {
    text: speech.text,
    voice: speech.voice.trim(),
    engine: speech.engine.trim(),
    speed: speech.speed,
    format,
    sampleRate: speech.sampleRate,
    language: speech.language,
    mode: spec.mode,
    consentConfirmed: spec.consentConfirmed,
    instructions: speech.instructions,
    rawText: speech.rawText,
    ...(speech.clone && speech.clone.referenceAudio.length > 0
      ? { clone: { audioBase64: Buffer.from(speech.clone.referenceAudio).toString('base64'), filename: speech.clone.referenceFilename, referenceId: speech.clone.referenceId } }
      : {}),
    // Checked as the node will check it, so a bad lexicon is refused at submission.
    ...(speech.lexicon.length === 0 ? {} : { lexicon: lexiconOfMessages(speech.lexicon, ['spec', 'speech', 'lexicon']) }),
    ...(speech.watermarkPayload === 0 ? {} : { watermarkPayload: speech.watermarkPayload }),
  };
}

