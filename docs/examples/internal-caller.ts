/**
 * An internal service calling the scheduler over gRPC with an API key (docs/internal-callers.md):
 * submits a job, waits for it and reads its audio. Only @grpc/grpc-js and @grpc/proto-loader and
 * the .proto files of this repository are needed. Run it with
 *   node --import tsx docs/examples/internal-caller.ts <scheduler host:port> <API key> "Text to speak."
 * tests/scheduler-callers.test.ts runs it against a real scheduler.
 */
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';

/** What the example returns: the job id and the audio bytes. */
export interface SpokenJob {
  readonly jobId: string;
  readonly ownerId: string;
  readonly audio: Buffer;
}

type Callback<T> = (err: grpc.ServiceError | null, value?: T) => void;
interface JobMessage {
  job_id: string;
  owner_id: string;
  state: string;
}
interface SchedulerStub extends grpc.Client {
  SubmitJob(req: object, md: grpc.Metadata, cb: Callback<{ job: JobMessage }>): void;
  GetJob(req: object, md: grpc.Metadata, cb: Callback<{ job: JobMessage }>): void;
  ReadJobAudio(req: object, md: grpc.Metadata): grpc.ClientReadableStream<{ data: Buffer }>;
}

/** Submits `text` as a job with `apiKey`, waits until it completes and returns its audio. */
export async function speakAsJob(address: string, apiKey: string, text: string): Promise<SpokenJob> {
  const definition = protoLoader.loadSync(fileURLToPath(new URL('../../proto/tts/v1/scheduler.proto', import.meta.url)), {
    includeDirs: [fileURLToPath(new URL('../../proto', import.meta.url))],
    keepCase: true,
    enums: String,
    defaults: true,
  });
  const Scheduler = (grpc.loadPackageDefinition(definition) as unknown as { tts: { v1: { Scheduler: grpc.ServiceClientConstructor } } }).tts.v1.Scheduler;
  const client = new Scheduler(address, grpc.credentials.createInsecure()) as unknown as SchedulerStub;
  // The credential: the scheduler takes the owner and tier from the key, never from the request.
  const md = new grpc.Metadata();
  md.set('x-api-key', apiKey);
  const call = <T>(fn: (cb: Callback<T>) => void): Promise<T> => new Promise((resolve, reject) => fn((err, value) => (err ? reject(err) : resolve(value!))));
  try {
    const { job } = await call<{ job: JobMessage }>((cb) => client.SubmitJob({ spec: { speech: { text, voice: 'flite:slt' }, mode: 'auto' } }, md, cb));
    for (let state = job.state; state !== 'JOB_STATE_COMPLETED'; ) {
      if (state === 'JOB_STATE_FAILED' || state === 'JOB_STATE_CANCELLED') throw new Error(`job ${job.job_id} ended ${state}`);
      await new Promise((r) => setTimeout(r, 200));
      state = (await call<{ job: JobMessage }>((cb) => client.GetJob({ job_id: job.job_id }, md, cb))).job.state;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of client.ReadJobAudio({ job_id: job.job_id }, md)) chunks.push((chunk as { data: Buffer }).data);
    return { jobId: job.job_id, ownerId: job.owner_id, audio: Buffer.concat(chunks) };
  } finally {
    client.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [address, apiKey, text] = process.argv.slice(2);
  if (!address || !apiKey || !text) throw new Error('usage: internal-caller.ts <host:port> <API key> <text>');
  const spoken = await speakAsJob(address, apiKey, text);
  console.log(`job ${spoken.jobId}: ${spoken.audio.length} bytes of audio`);
}
