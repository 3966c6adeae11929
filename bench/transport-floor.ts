/**
 * Transport floor of the request path on this machine: what the hops alone cost, with none of the
 * platform's work. Three processes as in the platform (client, HTTP server, gRPC server); the HTTP
 * server answers each POST by one unary grpc-js call whose server answers at once with 30 KB (the
 * size of "Hello world." as WAV). No Express, validation, auth, telemetry, metering or synthesis.
 * Interleaved: client -> HTTP -> gRPC and back, and client -> gRPC straight.
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
const echo = (client: EchoClient): Promise<Buffer> => new Promise((resolve, reject) => client.echo(Buffer.from('hello'), (err, res) => (err ? reject(err) : resolve(res))));

async function serveGrpc(): Promise<number> {
  const server = new Server();
  const answer = Buffer.alloc(30_000, 7);
  server.addService(ECHO, { echo: (_call: unknown, callback: sendUnaryData<Buffer>) => callback(null, answer) });
  return new Promise((resolve, reject) => server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (err, port) => (err ? reject(err) : resolve(port))));
}

async function serveHttp(grpcPort: number): Promise<number> {
  const client = echoClient(grpcPort);
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      void echo(client).then((body) => {
        res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': body.length });
        res.end(body);
      });
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)));
}

function start(role: string, arg = ''): Promise<{ child: ChildProcess; port: number }> {
  const child = fork(fileURLToPath(import.meta.url), [role, arg], { execArgv: ['--import', 'tsx'] });
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
  const post = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port: httpServer.port, path: '/', method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
        res.on('data', () => undefined);
        res.on('end', resolve);
      });
      req.on('error', reject);
      req.end('{"text":"Hello world."}');
    });
  const client = echoClient(grpcServer.port);
  const N = Number(process.env['BENCH_FLOOR_N'] ?? 1000);
  for (let i = 0; i < 200; i++) {
    await post();
    await echo(client);
  }
  const relay: number[] = [];
  const direct: number[] = [];
  for (let i = 0; i < N; i++) {
    let t = performance.now();
    await post();
    relay.push(performance.now() - t);
    t = performance.now();
    await echo(client);
    direct.push(performance.now() - t);
  }
  const out = {
    machine: { cpu: cpus()[0]?.model, cores: availableParallelism(), node: process.version, loadavg: loadavg().map((x) => r(x)) },
    date: new Date().toISOString(),
    note: 'bare hops, 30 KB answer, no platform code: client -> node:http -> grpc-js unary, and client -> grpc-js unary',
    http_then_grpc_ms: { p50: r(summary(relay).p50, 3), p95: r(summary(relay).p95, 3), p99: r(summary(relay).p99, 3) },
    grpc_only_ms: { p50: r(summary(direct).p50, 3), p95: r(summary(direct).p95, 3), p99: r(summary(direct).p99, 3) },
  };
  agent.destroy();
  grpcServer.child.kill();
  httpServer.child.kill();
  mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
  writeFileSync(new URL('./results/transport-floor.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
  console.log(JSON.stringify(out, null, 2));
}
