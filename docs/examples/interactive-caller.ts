/**
 * An internal service streaming text into the platform over gRPC with an API key
 * (docs/internal-callers.md, "Interactive sessions"): opens Scheduler.SynthesizeInteractive, sends
 * the settings, then text a few words at a time as a language model would, ends the context and
 * collects its audio (16 kHz PCM), its word timings and its final message. Only @grpc/grpc-js,
 * @grpc/proto-loader and the .proto files of this repository are needed. Run it with
 *   node --import tsx docs/examples/interactive-caller.ts <scheduler host:port> <API key> "Text to speak."
 * tests/interactive-scheduler.test.ts runs it against a real scheduler and node.
 */
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';

/** A word and where it is in the context's audio (seconds from its start). */
export interface TimedWord {
  readonly word: string;
  readonly start_sec: number;
  readonly end_sec: number;
}

/** What the example returns. */
export interface SpokenSession {
  /** The node the scheduler chose for the session. */
  readonly nodeId: string;
  /** The context's audio: raw 16-bit little-endian mono PCM at 16 kHz. */
  readonly audio: Buffer;
  readonly words: TimedWord[];
  /** How the context ended and the characters it spoke. */
  readonly final: { outcome: string; characters_spoken: number; characters_in_synthesis: number };
  /** Error messages of the context (the session goes on after them). */
  readonly errors: { code: string; message: string }[];
}

interface Response {
  message: 'started' | 'audio' | 'final' | 'error';
  started?: { node_id: string };
  audio?: { context_id: string; data: Buffer; words: TimedWord[] };
  final?: SpokenSession['final'] & { context_id: string };
  error?: { context_id: string; code: string; message: string };
}

/** Speaks `text` in one context, sending it `wordsPerPiece` words at a time, with `apiKey`. */
export async function speakInteractively(address: string, apiKey: string, text: string, wordsPerPiece = 2): Promise<SpokenSession> {
  const definition = protoLoader.loadSync(fileURLToPath(new URL('../../proto/tts/v1/scheduler.proto', import.meta.url)), {
    includeDirs: [fileURLToPath(new URL('../../proto', import.meta.url))],
    keepCase: true,
    enums: String,
    defaults: true,
    oneofs: true,
  });
  const Scheduler = (grpc.loadPackageDefinition(definition) as unknown as { tts: { v1: { Scheduler: grpc.ServiceClientConstructor } } }).tts.v1.Scheduler;
  const client = new Scheduler(address, grpc.credentials.createInsecure()) as unknown as grpc.Client & {
    SynthesizeInteractive(md: grpc.Metadata): grpc.ClientDuplexStream<object, Response>;
  };
  // The credential, as on every call: the session is the key's own (its tenant, its records).
  const md = new grpc.Metadata();
  md.set('x-api-key', apiKey);
  const call = client.SynthesizeInteractive(md);
  const context = 'turn-1';
  const audio: Buffer[] = [];
  const words: TimedWord[] = [];
  const errors: SpokenSession['errors'] = [];
  let nodeId = '';
  let final: SpokenSession['final'] | undefined;
  try {
    call.write({ start: { request_id: `example-${Date.now()}`, speech: { voice: 'flite:slt', encoding: 'AUDIO_ENCODING_PCM', sample_rate: 16000, word_timings: true } } });
    const received = (async () => {
      for await (const r of call as AsyncIterable<Response>) {
        if (r.message === 'started') nodeId = r.started!.node_id;
        else if (r.message === 'audio') {
          audio.push(r.audio!.data);
          words.push(...r.audio!.words);
        } else if (r.message === 'error') errors.push({ code: r.error!.code, message: r.error!.message });
        else if (r.message === 'final') final = r.final!;
      }
    })();
    const tokens = text.split(/(?<= )/);
    for (let i = 0; i < tokens.length; i += wordsPerPiece) {
      call.write({ text: { context_id: context, text: tokens.slice(i, i + wordsPerPiece).join('') } });
      await new Promise((r) => setTimeout(r, 20)); // a language model's pace
    }
    call.write({ end: { context_id: context } });
    call.end(); // no more input: the call ends after the context's final message
    await received;
  } finally {
    client.close();
  }
  if (!final) throw new Error('the session ended without the final message');
  return { nodeId, audio: Buffer.concat(audio), words, final, errors };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [address, apiKey, text] = process.argv.slice(2);
  if (!address || !apiKey || !text) throw new Error('usage: interactive-caller.ts <host:port> <API key> <text>');
  const spoken = await speakInteractively(address, apiKey, text);
  console.log(`node ${spoken.nodeId}: ${(spoken.audio.length / 32000).toFixed(2)} s of audio, ${spoken.words.length} words, ${spoken.final.outcome}`);
}
