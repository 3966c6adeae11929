/**
 * Transport floor of the request path on this machine: what the hops alone cost, with none of the
 * platform's work. Three processes as in the platform (client, HTTP server, gRPC server); the HTTP
 * server answers each POST by one unary grpc-js call whose server answers with 30 KB (the size of
 * "Hello world." as WAV), either at once or after waiting `work` ms as synthesis would (then the
 * other processes sit idle meanwhile, as they do in the platform); the wait the server measured is
 * subtracted, as the platform's benchmark subtracts node time. No Express, validation, auth,
 * telemetry, metering or synthesis. Interleaved: client -> HTTP -> gRPC and back, and client ->
 * gRPC straight.
 * Writes bench/results/transport-floor.json.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { credentials, makeGenericClientConstructor, Server, ServerCredentials, type sendUnaryData, type ServiceDefinition } from '@grpc/grpc-js';
import { r, summary } from './support.js';
import { SOURCE_EXEC_ARGV } from '@tts/common';

const identity = (b: Buffer): Buffer => b;
const ECHO: ServiceDefinition = {
  echo: { path: '/bench.Echo/Echo', requestStream: false, responseStream: false, requestSerialize: identity, requestDeserialize: identity, responseSerialize: identity, responseDeserialize: identity },
};
interface EchoClient {
  echo(request: Buffer, callback: (err: Error | null, response: Buffer) => void): void;
}
const echoClient = (port: number): EchoClient => {
  const Client = makeGenericClientConstructor(ECHO, 'Echo');
  return new Client(`127.0.0.1:${port}`, credentials.createInsecure()) as unknown as EchoClient;
};
/** Calls the echo server, which waits `work` ms; resolves to the server's own time, ms. */
const echo = (client: EchoClient, work: number): Promise<number> => {
  const request = Buffer.alloc(4);
  request.writeUInt32LE(work);
  return new Promise((resolve, reject) => client.echo(request, (err, res) => (err ? reject(err) : resolve(res.readDoubleLE(0)))));
};

async function serveGrpc(): Promise<number> {
  const server = new Server();
  server.addService(ECHO, {
    echo: (call: { request: Buffer }, callback: sendUnaryData<Buffer>) => {
      const started = performance.now();
      const answer = (): void => {
        const body = Buffer.alloc(30_000, 7);
        body.writeDoubleLE(performance.now() - started, 0);
        callback(null, body);
      };
      const work = call.request.readUInt32LE(0);
      if (work === 0) answer();
      else setTimeout(answer, work);
    },
  });
  return new Promise((resolve, reject) => server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (err, port) => (err ? reject(err) : resolve(port))));
}

async function serveHttp(grpcPort: number): Promise<number> {
  const client = echoClient(grpcPort);
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      void echo(client, Number(req.headers['x-work'] ?? 0)).then((serverMs) => {
        const body = Buffer.alloc(30_000, 7);
        res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': body.length, 'x-server-ms': String(serverMs) });
        res.end(body);
      });
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)));
}

function start(role: string, arg = ''): Promise<{ child: ChildProcess; port: number }> {
  const child = fork(fileURLToPath(import.meta.url), [role, arg], { execArgv: [...SOURCE_EXEC_ARGV] });
  return new Promise((resolve, reject) => {
    child.once('message', (port) => resolve({ child, port: Number(port) }));
    child.once('exit', (code) => reject(new Error(`${role} exited with ${code}`)));
  });
}

const role = process.argv[2];
if (role === 'grpc') process.send!(await serveGrpc());
else if (role === 'http') process.send!(await serveHttp(Number(process.argv[3])));
else {
  const grpcServer = await start('grpc');
  const httpServer = await start('http', String(grpcServer.port));
  const agent = new http.Agent({ keepAlive: true });
  /** POSTs; resolves to the gRPC server's own time, ms. */
  const post = (work: number): Promise<number> =>
    new Promise((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port: httpServer.port, path: '/', method: 'POST', agent, headers: { 'content-type': 'application/json', 'x-work': String(work) } }, (res) => {
        res.on('data', () => undefined);
        res.on('end', () => resolve(Number(res.headers['x-server-ms'])));
      });
      req.on('error', reject);
      req.end('{"text":"Hello world."}');
    });
  const client = echoClient(grpcServer.port);
  const N = Number(process.env['BENCH_FLOOR_N'] ?? 500);
  const results: Record<string, unknown> = {};
  for (const work of [0, 15]) {
    for (let i = 0; i < 50; i++) {
      await post(work);
      await echo(client, work);
    }
    const relay: number[] = [];
    const direct: number[] = [];
    for (let i = 0; i < N; i++) {
      let t = performance.now();
      let server = await post(work);
      relay.push(performance.now() - t - server);
      t = performance.now();
      server = await echo(client, work);
      direct.push(performance.now() - t - server);
    }
    const stats = (xs: number[]) => ({ p50: r(summary(xs).p50, 3), p95: r(summary(xs).p95, 3), p99: r(summary(xs).p99, 3) });
    results[`server_work_${work}ms`] = { http_then_grpc_ms: stats(relay), grpc_only_ms: stats(direct) };
  }
  const out = {
    machine: { cpu: cpus()[0]?.model, cores: availableParallelism(), node: process.version, loadavg: loadavg().map((x) => r(x)) },
    date: new Date().toISOString(),
    note: 'bare hops, 30 KB answer, no platform code: client -> node:http -> grpc-js unary, and client -> grpc-js unary; latency minus the time the gRPC server measured for itself',
    ...results,
  };
  agent.destroy();
  grpcServer.child.kill();
  httpServer.child.kill();
  mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
  writeFileSync(new URL('./results/transport-floor.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
  console.log(JSON.stringify(out, null, 2));
}
