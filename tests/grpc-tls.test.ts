/**
 * TLS and mutual TLS of the internal gRPC hops (issue 15, item 4): a real scheduler and a real
 * inference node process, both on TTS_GRPC_TLS_* files made at test time with the openssl CLI
 * (a CA, certificates for 127.0.0.1/localhost usable as server and client certificates). A job
 * (client -> scheduler -> node, node -> scheduler registration and heartbeats) and a synthesis
 * work over mutual TLS; a plaintext client, a client without a certificate and a client with a
 * certificate from another CA are refused; server reflection lists and describes the services;
 * replacing the files (a new certificate from the same CA, then a new CA) takes effect without a
 * restart within the refresh interval; bad files are refused at start with the variable named.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { after, before, describe, test } from 'node:test';
import { credentials, loadPackageDefinition, Metadata, type ChannelCredentials, type GrpcObject, type ServiceClientConstructor } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { JobState, SchedulerClient } from '@tts/proto/scheduler';
import { SynthesizerClient } from '@tts/proto/synthesis';
import { callUnary, ConfigError, readGrpcTlsConfig } from '@tts/common';
import { jobSpec, pollJobEvents, readJobAudio, spawnService, startNodeProcess, startSchedulerProcess, submitJob, waitUntil, type ServiceProcess } from '@tts/scheduler/testing';
import { freePort } from './support/processes.js';

const REFRESH_MS = 300;
const ADMIN_KEY = 'tls-test-admin-key-0123456789abcdef';

/** Runs openssl in `dir`. */
function openssl(dir: string, ...args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
}

/** A self-signed CA: `<name>.crt` and `<name>.key` in `dir`. */
function makeCa(dir: string, name: string): void {
  openssl(dir, 'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.crt`, '-days', '2', '-subj', `/CN=${name}`);
}

/** A certificate for 127.0.0.1 and localhost, server and client use, signed by `ca`: `<name>.crt`, `<name>.key`. */
function makeLeaf(dir: string, ca: string, name: string): void {
  openssl(dir, 'req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`);
  const ext = join(dir, `${name}.ext`);
  execFileSync('sh', ['-c', `printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\\nextendedKeyUsage=serverAuth,clientAuth\\n' > '${ext}'`]);
  openssl(dir, 'x509', '-req', '-in', `${name}.csr`, '-CA', `${ca}.crt`, '-CAkey', `${ca}.key`, '-CAcreateserial', '-out', `${name}.crt`, '-days', '2', '-extfile', ext);
}

/** Serial number (hex, upper case) of a PEM certificate file. */
function serialOf(file: string): string {
  return execFileSync('openssl', ['x509', '-in', file, '-noout', '-serial']).toString().trim().replace(/^serial=/, '').toUpperCase();
}

describe('gRPC over TLS and mutual TLS', () => {
  let dir: string;
  let live: string;
  let dataDir: string;
  let schedulerAddress: string;
  let scheduler: ServiceProcess | undefined;
  let node: ServiceProcess | undefined;
  let facade: ServiceProcess | undefined;
  let facadeUrl: string;
  let tlsEnv: Record<string, string>;
  const clients: { close(): void }[] = [];

  const file = (name: string): string => join(dir, name);
  /** TLS credentials trusting `ca`, presenting `leaf`'s certificate (none when undefined). */
  const tlsCredentials = async (ca: string, leaf?: string): Promise<ChannelCredentials> =>
    leaf === undefined
      ? credentials.createSsl(await readFile(file(`${ca}.crt`)))
      : credentials.createSsl(await readFile(file(`${ca}.crt`)), await readFile(file(`${leaf}.key`)), await readFile(file(`${leaf}.crt`)));
  const scheduler$ = (creds: ChannelCredentials): SchedulerClient => {
    // A fresh channel each time (no shared subchannel): every client makes its own TLS handshake.
    const c = new SchedulerClient(schedulerAddress, creds, { 'grpc.use_local_subchannel_pool': 1 });
    clients.push(c);
    return c;
  };
  /** The error code a QueueStats call ends with, or "ok". */
  const outcome = async (c: SchedulerClient): Promise<string> =>
    callUnary(c.getQueueStats.bind(c), {}, { timeoutMs: 3000 }).then(
      () => 'ok',
      (err: unknown) => `refused: ${(err as Error).message}`,
    );
  /** Installs `<leaf>.crt/.key` and `<ca>.crt` as the processes' files (each file renamed into place). */
  const install = async (ca: string, leaf: string): Promise<void> => {
    for (const [from, to] of [[`${leaf}.key`, 'tls.key'], [`${leaf}.crt`, 'tls.crt'], [`${ca}.crt`, 'ca.crt']] as const) {
      await writeFile(join(live, `${to}.new`), await readFile(file(from)));
      await rename(join(live, `${to}.new`), join(live, to));
    }
  };
  /** Serial of the certificate the scheduler presents to a new TLS connection trusting `ca` with `leaf`. */
  const presentedSerial = (ca: string, leaf: string): Promise<string> =>
    Promise.all([readFile(file(`${ca}.crt`)), readFile(file(`${leaf}.key`)), readFile(file(`${leaf}.crt`))]).then(
      ([caPem, key, cert]) =>
        new Promise<string>((resolve, reject) => {
          const [host, port] = schedulerAddress.split(':');
          const s = tlsConnect({ host, port: Number(port), ca: caPem, key, cert, ALPNProtocols: ['h2'], servername: 'localhost' }, () => {
            resolve(s.getPeerCertificate().serialNumber.toUpperCase());
            s.destroy();
          });
          s.once('error', reject);
        }),
    );

  before(async () => {
    execFileSync('openssl', ['version']); // the test needs the openssl CLI (Debian: package openssl)
    dir = await mkdtemp(join(tmpdir(), 'tts-grpc-tls-'));
    live = join(dir, 'live');
    dataDir = join(dir, 'data');
    makeCa(dir, 'ca1');
    makeCa(dir, 'ca2');
    makeLeaf(dir, 'ca1', 'platform');
    makeLeaf(dir, 'ca1', 'platform-renewed');
    makeLeaf(dir, 'ca1', 'caller');
    makeLeaf(dir, 'ca2', 'rogue');
    makeLeaf(dir, 'ca2', 'platform-ca2');
    makeLeaf(dir, 'ca2', 'caller-ca2');
    execFileSync('mkdir', ['-p', live]);
    await install('ca1', 'platform');
    tlsEnv = {
      TTS_GRPC_TLS_CERT: join(live, 'tls.crt'),
      TTS_GRPC_TLS_KEY: join(live, 'tls.key'),
      TTS_GRPC_TLS_CA: join(live, 'ca.crt'),
      TTS_GRPC_TLS_CLIENT_AUTH: 'require',
      TTS_GRPC_TLS_REFRESH_MS: String(REFRESH_MS),
    };
    const port = await freePort();
    schedulerAddress = `127.0.0.1:${port}`;
    scheduler = await startSchedulerProcess(port, { ...tlsEnv, DATA_DIR: dataDir, SCHEDULER_QUEUE_POLL_MS: '100' });
    // The node registers and heartbeats over mutual TLS; the scheduler dials it back the same way.
    node = await startNodeProcess({ nodeId: 'tls-node', schedulerAddress, env: tlsEnv });
    const facadePort = await freePort();
    facadeUrl = `http://127.0.0.1:${facadePort}`;
    facade = await spawnService(
      'facade/src/main',
      {
        ...tlsEnv,
        HOST: '127.0.0.1',
        PORT: String(facadePort),
        SCHEDULER_ADDRESS: schedulerAddress,
        TTS_ADMIN_KEY: ADMIN_KEY,
        DATA_DIR: join(dir, 'facade'),
        TTS_DEFAULT_VOICE: 'flite:slt',
        TTS_MODEL_HUB_URL: 'http://127.0.0.1:9',
        METRICS_PORT: '0',
      },
      '"facade listening"',
      60_000,
    );
  });

  after(async () => {
    for (const c of clients) c.close();
    await facade?.stop();
    await node?.stop();
    await scheduler?.stop();
    // Retried: a stopped process's last files may still be going away (ENOTEMPTY once in a clean run).
    if (dir) await rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  });

  test('a job and a synthesis work over mutual TLS on every hop', async () => {
    const client = scheduler$(await tlsCredentials('ca1', 'caller'));
    await waitUntil(async () => (await callUnary(client.getQueueStats.bind(client), {})).nodesReady === 1, 10_000, 'the node ready over TLS');
    const job = await submitJob(client, jobSpec('Mutual TLS on every hop.'));
    const events = await pollJobEvents(client, job.jobId, 30_000);
    assert.equal(events.at(-1)?.kind, 'completed', events.map((e) => e.kind).join(','));
    const { result, audio } = await readJobAudio(client, job.jobId);
    assert.ok(audio.length > 1000, `audio of ${audio.length} bytes`);
    assert.equal(audio.subarray(0, 4).toString('latin1'), 'RIFF');
    assert.ok(result.sha256.length > 0);
    const got = await callUnary(client.getJob.bind(client), { jobId: job.jobId });
    assert.equal(got.job?.state, JobState.JOB_STATE_COMPLETED);

    // A synthesis straight on the node (as the facade does), at the address the scheduler lists.
    const nodes = await callUnary(client.listNodes.bind(client), {});
    const address = nodes.nodes.find((n) => n.status?.nodeId === 'tls-node')?.status?.address ?? '';
    assert.match(address, /^127\.0\.0\.1:\d+$/);
    const synth = new SynthesizerClient(address, await tlsCredentials('ca1', 'caller'));
    clients.push(synth);
    const res = await callUnary(synth.synthesize.bind(synth), { requestId: 'tls', tenantId: '', tenantWeight: 0, speech: jobSpec('Synthesis over TLS.').speech });
    assert.equal(res.audio.subarray(0, 4).toString('latin1'), 'RIFF');
    // The node refuses plaintext too.
    const plainSynth = new SynthesizerClient(address, credentials.createInsecure());
    clients.push(plainSynth);
    await assert.rejects(callUnary(plainSynth.listVoices.bind(plainSynth), { engine: '', language: '' }, { timeoutMs: 3000 }));
  });

  test('through the facade: synchronous synthesis (facade -> scheduler -> node) and a job over mutual TLS', async () => {
    const created = await fetch(`${facadeUrl}/api/auth/keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-admin-key': ADMIN_KEY },
      body: JSON.stringify({ name: 'tls', tier: 'enterprise' }),
    });
    assert.equal(created.status, 201);
    const apiKey = ((await created.json()) as { api_key: string }).api_key;
    const headers = { 'content-type': 'application/json', 'x-api-key': apiKey };
    let speech: Response | undefined;
    // The facade learns the node from the scheduler's ListNodes (over TLS) within a refresh.
    await waitUntil(async () => {
      speech = await fetch(`${facadeUrl}/api/tts`, { method: 'POST', headers, body: JSON.stringify({ text: 'Through the facade.', voice: 'flite:slt' }) });
      return speech.status !== 503;
    }, 15_000, 'the facade routing to the node');
    assert.equal(speech?.status, 200);
    assert.equal(Buffer.from(await speech!.arrayBuffer()).toString('ascii', 8, 12), 'WAVE');
    const submitted = await fetch(`${facadeUrl}/api/jobs/tts`, { method: 'POST', headers, body: JSON.stringify({ text: 'A job through the facade.', voice: 'flite:slt' }) });
    assert.equal(submitted.status, 202);
    const jobId = ((await submitted.json()) as { job_id: string }).job_id;
    let status = '';
    await waitUntil(async () => {
      status = ((await (await fetch(`${facadeUrl}/api/jobs/${jobId}`, { headers })).json()) as { status: string }).status;
      return status === 'completed' || status === 'failed';
    }, 30_000, 'the job done');
    assert.equal(status, 'completed');
    const audio = await fetch(`${facadeUrl}/api/jobs/${jobId}/audio`, { headers });
    assert.equal(audio.status, 200);
    assert.equal(Buffer.from(await audio.arrayBuffer()).toString('ascii', 8, 12), 'WAVE');
  });

  test('the image health check speaks TLS with the same files', async () => {
    const port = schedulerAddress.split(':')[1]!;
    const check = (env: Record<string, string>): number => {
      try {
        execFileSync(process.execPath, ['deploy/docker/healthcheck.mjs', 'grpc', port], { env: { PATH: process.env['PATH'] ?? '', ...env }, stdio: 'pipe' });
        return 0;
      } catch (err) {
        return (err as { status: number }).status;
      }
    };
    assert.equal(check(tlsEnv), 0);
    assert.equal(check({}), 1, 'plaintext health check refused');
  });

  test('plaintext, no client certificate and a certificate from another CA are refused', async () => {
    assert.equal(await outcome(scheduler$(await tlsCredentials('ca1', 'caller'))), 'ok');
    assert.match(await outcome(scheduler$(credentials.createInsecure())), /^refused/);
    assert.match(await outcome(scheduler$(await tlsCredentials('ca1'))), /^refused/);
    assert.match(await outcome(scheduler$(await tlsCredentials('ca1', 'rogue'))), /^refused/);
    // A client that does not trust the server's CA refuses the server.
    assert.match(await outcome(scheduler$(await tlsCredentials('ca2', 'caller-ca2'))), /^refused/);
  });

  test('server reflection lists and describes the services', async () => {
    const reflectionProto = join(process.cwd(), 'node_modules/@grpc/reflection/build/proto/grpc/reflection/v1/reflection.proto');
    const pkg = loadPackageDefinition(loadSync(reflectionProto, { keepCase: false, longs: String }));
    const ServerReflection = ((pkg.grpc as GrpcObject).reflection as GrpcObject).v1 as GrpcObject;
    const Ctor = ServerReflection.ServerReflection as ServiceClientConstructor;
    const rc = new Ctor(schedulerAddress, await tlsCredentials('ca1', 'caller'));
    clients.push(rc);
    const ask = (request: object): Promise<Record<string, unknown>> =>
      new Promise((resolve, reject) => {
        const call = (rc as unknown as { ServerReflectionInfo(m: Metadata): unknown }).ServerReflectionInfo(new Metadata()) as NodeJS.EventEmitter & { write(m: object): void; end(): void };
        call.once('data', (m: Record<string, unknown>) => {
          resolve(m);
          call.end();
        });
        call.once('error', reject);
        call.write(request);
      });
    const listed = (await ask({ listServices: '*' })).listServicesResponse as { service: { name: string }[] };
    const names = listed.service.map((s) => s.name).sort();
    assert.deepEqual(names, ['grpc.health.v1.Health', 'tts.v1.Scheduler']);
    const described = (await ask({ fileContainingSymbol: 'tts.v1.Scheduler' })).fileDescriptorResponse as { fileDescriptorProto: Buffer[] };
    assert.ok(described.fileDescriptorProto.length >= 1);
    const text = Buffer.concat(described.fileDescriptorProto).toString('latin1');
    assert.ok(text.includes('SubmitJob') && text.includes('ReadJobAudio'), 'the descriptor names the methods');
  });

  test('replaced certificate files take effect without a restart', async () => {
    assert.equal(await presentedSerial('ca1', 'caller'), serialOf(file('platform.crt')));
    // A renewed certificate from the same CA: served within the refresh interval.
    await install('ca1', 'platform-renewed');
    const renewed = serialOf(file('platform-renewed.crt'));
    await waitUntil(async () => (await presentedSerial('ca1', 'caller')) === renewed, 10 * REFRESH_MS, 'the renewed certificate served');
    assert.equal(await outcome(scheduler$(await tlsCredentials('ca1', 'caller'))), 'ok');

    // A new CA: callers of the old CA are refused, callers of the new one admitted.
    await install('ca2', 'platform-ca2');
    await waitUntil(async () => (await outcome(scheduler$(await tlsCredentials('ca2', 'caller-ca2')))) === 'ok', 10 * REFRESH_MS, 'the new CA trusted');
    assert.match(await outcome(scheduler$(await tlsCredentials('ca1', 'caller'))), /^refused/);
    assert.equal(await presentedSerial('ca2', 'caller-ca2'), serialOf(file('platform-ca2.crt')));
    // The node reloaded too: a new job runs (the scheduler reaches the node and hears its heartbeats).
    const client = scheduler$(await tlsCredentials('ca2', 'caller-ca2'));
    const job = await submitJob(client, jobSpec('After the new CA.'));
    const events = await pollJobEvents(client, job.jobId, 30_000);
    assert.equal(events.at(-1)?.kind, 'completed', events.map((e) => e.kind).join(','));
    const nodes = await callUnary(client.listNodes.bind(client), {});
    const address = nodes.nodes.find((n) => n.status?.nodeId === 'tls-node')?.status?.address ?? '';
    const synth = new SynthesizerClient(address, await tlsCredentials('ca2', 'caller-ca2'), { 'grpc.use_local_subchannel_pool': 1 });
    clients.push(synth);
    const res = await callUnary(synth.listVoices.bind(synth), { engine: '', language: '' }, { timeoutMs: 3000 });
    assert.ok(res.voices.length > 0);
  });

  test('bad TLS settings are refused at start, naming the variable', async () => {
    const env = (over: Record<string, string>): Record<string, string> => ({
      TTS_GRPC_TLS_CERT: file('platform.crt'),
      TTS_GRPC_TLS_KEY: file('platform.key'),
      TTS_GRPC_TLS_CA: file('ca1.crt'),
      ...over,
    });
    const refused = (over: Record<string, string>): string => {
      try {
        readGrpcTlsConfig(env(over));
      } catch (err) {
        assert.ok(err instanceof ConfigError);
        return err.variable;
      }
      return 'accepted';
    };
    assert.equal(refused({}), 'accepted');
    assert.equal(readGrpcTlsConfig({}), undefined, 'no variables: plaintext');
    assert.equal(refused({ TTS_GRPC_TLS_CA: '' }), 'TTS_GRPC_TLS_CA');
    assert.equal(refused({ TTS_GRPC_TLS_KEY: file('caller.key') }), 'TTS_GRPC_TLS_KEY');
    assert.equal(refused({ TTS_GRPC_TLS_CA: file('ca2.crt') }), 'TTS_GRPC_TLS_CA');
    assert.equal(refused({ TTS_GRPC_TLS_CERT: file('missing.crt') }), 'TTS_GRPC_TLS_CERT');
    assert.equal(refused({ TTS_GRPC_TLS_CERT: file('ca1.key') }), 'TTS_GRPC_TLS_CERT');
    assert.equal(refused({ TTS_GRPC_TLS_CLIENT_AUTH: 'sometimes' }), 'TTS_GRPC_TLS_CLIENT_AUTH');
    // A process with bad files does not start.
    const port = await freePort();
    await assert.rejects(
      spawnService('services/scheduler/src/main', { SCHEDULER_GRPC_PORT: String(port), DATA_DIR: join(dir, 'bad'), ...env({ TTS_GRPC_TLS_KEY: file('caller.key') }) }, '"scheduler ready"', 20_000),
      /TTS_GRPC_TLS_KEY/,
    );
  });

  test('beyond loopback a scheduler and a node serve plaintext only with TTS_GRPC_ALLOW_PLAINTEXT; with TLS they start', async () => {
    const tokens = { TTS_INTERNAL_TOKEN: 'i'.repeat(32), TTS_NODE_JOIN_TOKEN: 'j'.repeat(32) };
    const schedulerEnv = async (over: Record<string, string>): Promise<Record<string, string>> => ({
      SCHEDULER_GRPC_HOST: '0.0.0.0',
      SCHEDULER_GRPC_PORT: String(await freePort()),
      DATA_DIR: join(dir, `beyond-${Math.random().toString(36).slice(2)}`),
      ...tokens,
      ...over,
    });
    await assert.rejects(spawnService('services/scheduler/src/main', await schedulerEnv({}), '"scheduler ready"', 20_000), /TTS_GRPC_TLS_CERT.*0\.0\.0\.0.*TTS_GRPC_ALLOW_PLAINTEXT/s);
    await assert.rejects(
      spawnService('services/inference-node/src/main', { NODE_GRPC_HOST: '0.0.0.0', NODE_GRPC_PORT: '0', NODE_ENGINES: 'flite' }, '"inference node ready"', 20_000),
      /TTS_GRPC_TLS_CERT.*0\.0\.0\.0/s,
    );
    const optedOut = await spawnService('services/scheduler/src/main', await schedulerEnv({ TTS_GRPC_ALLOW_PLAINTEXT: 'true' }), '"scheduler ready"', 20_000);
    await optedOut.stop();
    const withTls = await spawnService('services/scheduler/src/main', await schedulerEnv(tlsEnv), '"scheduler ready"', 20_000);
    await withTls.stop();
  });
});
