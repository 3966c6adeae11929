/**
 * The `server` transport (kept for comparison; the engine defaults to the `pipe` one): one warm
 * `festival --server` process and the one client connection the engine keeps to it.
 *
 * The process loads the voice from a generated init file before its server starts. Festival forks a
 * child per client connection; the engine keeps one connection per process, so each process
 * synthesizes one sentence at a time. Festival binds every interface (it has no bind-address
 * setting); a per-process random password and the loopback access list keep other hosts and local
 * processes out.
 *
 * Why it is slower: festival writes each reply as several small writes on a socket without
 * TCP_NODELAY, so Nagle's algorithm holds the tail of a reply until this side's delayed ACK
 * (~40 ms on Linux). It also writes each reply to a temporary `est_*` file before sending it
 * (world-readable: in the private work directory, through TMPDIR). The voice itself stays loaded
 * between utterances.
 *
 * No orphans: see `process-group.ts`. The per-connection children exit when the connection closes.
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { TtsError } from '@tts/common';
import { FESTIVAL_HEAP_CELLS, spawnGroup } from './process-group.js';
import { WarmFestivalProcess, synthDefinition, wordTimings, type FestivalAudio, type FestivalProcessOptions } from './festival-process.js';
import { FestivalDecoder, parseRiffWave, schemeString, type FestivalMessage } from './protocol.js';

/** A free TCP port on loopback (the OS picks it; festival binds it right after). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      srv.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** The Scheme the server runs before serving: port, password, voice, and the synthesis entry point. */
function initScheme(port: number, password: string, voice: string): string {
  return [
    `(set! server_port ${port})`,
    '(set! server_log_file nil)',
    `(set! server_passwd ${schemeString(password)})`,
    `(set! server_access_list '("127.0.0.1" "localhost"))`,
    synthDefinition(voice),
    '(define (tts_platform_say text rate file)',
    '  (set! tts_platform_utt (tts_platform_synth text rate))',
    '  (tts_platform_save_words tts_platform_utt file)',
    '  (utt.send.wave.client tts_platform_utt)',
    '  nil)',
    '',
  ].join('\n');
}

/** One warm festival server process with its client connection. */
export class FestivalServer extends WarmFestivalProcess {
  private readonly decoder = new FestivalDecoder();
  /** Sequence number of the words file of each synthesis. */
  private nextWords = 1;
  private readonly replies: FestivalMessage[] = [];
  private socket: Socket | null = null;

  private constructor(
    child: ChildProcess,
    private readonly initFile: string,
    options: FestivalProcessOptions,
    onDeath: (cause: unknown) => void,
  ) {
    super(child, options, onDeath, 'server process');
    child.stderr?.on('data', (d: Buffer) => this.keepStderr(d.toString('utf8')));
  }

  /**
   * Starts a server, connects, and warms it up with one synthesis. `onDeath` fires if it dies later.
   * Retries with another port when the chosen one was taken before festival could bind it.
   */
  static async start(options: FestivalProcessOptions, onDeath: (cause: unknown) => void): Promise<FestivalServer> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await FestivalServer.startOnce(options, onDeath);
      } catch (err) {
        const portTaken = err instanceof Error && /bind failed/.test(err.message);
        if (!portTaken || attempt >= 3) throw err;
      }
    }
  }

  private static async startOnce(options: FestivalProcessOptions, onDeath: (cause: unknown) => void): Promise<FestivalServer> {
    const port = await freePort();
    const password = randomBytes(16).toString('hex');
    const initFile = join(options.workDir, `server-${port}-${randomBytes(4).toString('hex')}.scm`);
    await writeFile(initFile, initScheme(port, password, options.voice), { mode: 0o600 });
    let child: ChildProcess;
    try {
      child = await spawnGroup(options.binary, ['--heap', String(FESTIVAL_HEAP_CELLS), '--server', initFile], ['ignore', 'pipe', 'pipe'], options.workDir);
    } catch (err) {
      await rm(initFile, { force: true });
      throw err;
    }
    const server = new FestivalServer(child, initFile, options, onDeath);
    await server.warmUp(async () => {
      await server.connect(port, password);
      await rm(initFile, { force: true }); // festival has read it; it holds the password
    });
    return server;
  }

  private async connect(port: number, password: string): Promise<void> {
    const deadline = Date.now() + this.options.startTimeoutMs;
    for (;;) {
      if (this.failure) throw new TtsError('TTS_ENGINE_UNAVAILABLE', `festival: server failed to start: ${this.failure.message}`);
      try {
        this.socket = await new Promise<Socket>((resolve, reject) => {
          const s = connect(port, '127.0.0.1');
          s.once('connect', () => {
            s.removeAllListeners('error');
            resolve(s);
          });
          s.once('error', reject);
        });
        break;
      } catch (err) {
        if (Date.now() > deadline) throw new TtsError('TTS_ENGINE_UNAVAILABLE', `festival: server did not start listening within ${this.options.startTimeoutMs} ms${this.stderrHint()}`, { cause: err });
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    const socket = this.socket;
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => {
      try {
        this.replies.push(...this.decoder.push(chunk));
      } catch (err) {
        this.fail(err instanceof TtsError ? err : new TtsError('TTS_ENGINE_FAILED', String(err)));
        return;
      }
      this.wake();
    });
    socket.on('error', (err) => this.fail(new TtsError('TTS_ENGINE_FAILED', `festival: connection error: ${err.message}`, { cause: err })));
    socket.on('close', () => this.fail(new TtsError('TTS_ENGINE_FAILED', `festival: the server closed the connection${this.stderrHint()}`)));
    socket.write(`${password}\n(Parameter.set 'Wavefiletype 'riff)\ncurrent-voice\n`);
    await this.command(this.options.startTimeoutMs);
    const [voice] = await this.command(this.options.startTimeoutMs);
    const loaded = voice?.type === 'LP' ? voice.data.toString('utf8').trim() : '';
    if (loaded !== this.options.voice) {
      throw new TtsError('TTS_ENGINE_UNAVAILABLE', `festival: voice ${this.options.voice} did not load (current voice: ${loaded || 'none'})${this.stderrHint()}`);
    }
  }

  /** Synthesizes `text` at `rate` (1 = normal). */
  async synthesize(text: string, rate: number): Promise<FestivalAudio> {
    if (!this.socket || this.failure) throw this.failure ?? new TtsError('TTS_ENGINE_FAILED', 'festival: not connected');
    const wordsFile = join(this.options.workDir, `words-${this.pid}-${this.nextWords++}.txt`);
    try {
      this.socket.write(`(tts_platform_say ${schemeString(text)} ${rate.toFixed(4)} ${schemeString(wordsFile)})\n`);
      const messages = await this.command(this.options.requestTimeoutMs);
      const wave = messages.find((m): m is Extract<FestivalMessage, { type: 'WV' }> => m.type === 'WV');
      if (!wave) throw new TtsError('TTS_ENGINE_FAILED', 'festival: no wave in the reply');
      return { ...parseRiffWave(wave.data), words: wordTimings(await readFile(wordsFile, 'utf8')) };
    } finally {
      await rm(wordsFile, { force: true });
    }
  }

  /** Waits for the replies of one expression, up to its OK (or ER). */
  private command(timeoutMs: number): Promise<FestivalMessage[]> {
    const collected: FestivalMessage[] = [];
    return this.awaitReply(timeoutMs, () => {
      for (let next = this.replies.shift(); next; next = this.replies.shift()) {
        if (next.type === 'OK') return collected;
        if (next.type === 'ER') throw new TtsError('TTS_ENGINE_FAILED', `festival: the server could not synthesize this text${this.stderrHint()}`);
        collected.push(next);
      }
      return undefined;
    });
  }

  protected override closeTransport(): void {
    this.socket?.destroy();
  }

  /** Kills the process group, waits until every member is gone, and removes the init file. */
  override async dispose(): Promise<void> {
    await super.dispose();
    await rm(this.initFile, { force: true });
  }
}
