#!/usr/bin/env node
// The images' HEALTHCHECK (Docker and Compose; Kubernetes uses the chart's probes instead):
//   healthcheck.mjs http <port>   GET http://127.0.0.1:<port>/api/health answers 200 (the facade)
//   healthcheck.mjs grpc <port>   grpc.health.v1.Health/Check("") answers SERVING (scheduler, node)
// With TTS_GRPC_TLS_CERT/KEY/CA set (the chart's tls.enabled) the grpc check speaks TLS, presenting
// the process's own certificate: the check dials itself on loopback, so the CA is checked and the
// host name is not. Exit 0 when healthy, 1 otherwise, within 2.5 s.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const [mode, port] = process.argv.slice(2);
const deadlineMs = 2500;
const fail = (why) => {
  console.error(`unhealthy: ${why}`);
  process.exit(1);
};
if (!/^\d+$/.test(port ?? '')) fail('usage: healthcheck.mjs http|grpc <port>');

if (mode === 'http') {
  const res = await fetch(`http://127.0.0.1:${port}/api/health`, { signal: AbortSignal.timeout(deadlineMs) }).catch((err) => fail(err.message));
  if (res.status !== 200) fail(`GET /api/health answered ${res.status}`);
} else if (mode === 'grpc') {
  const require = createRequire(import.meta.url);
  const grpc = require('@grpc/grpc-js');
  const loader = require('@grpc/proto-loader');
  const { protoPath } = require('grpc-health-check');
  const { grpc: { health: { v1 } } } = grpc.loadPackageDefinition(loader.loadSync(protoPath, { enums: String }));
  const { TTS_GRPC_TLS_CERT: cert, TTS_GRPC_TLS_KEY: key, TTS_GRPC_TLS_CA: ca } = process.env;
  let creds = grpc.credentials.createInsecure();
  if (cert && key && ca) {
    try {
      creds = grpc.credentials.createSsl(readFileSync(ca), readFileSync(key), readFileSync(cert), { checkServerIdentity: () => undefined });
    } catch (err) {
      fail(`TLS files: ${err.message}`);
    }
  }
  const client = new v1.Health(`127.0.0.1:${port}`, creds);
  const status = await new Promise((resolve) => {
    client.check({ service: '' }, { deadline: Date.now() + deadlineMs }, (err, res) => resolve(err ? `error: ${err.message}` : res.status));
  });
  client.close();
  if (status !== 'SERVING') fail(`health status ${status}`);
} else {
  fail(`unknown mode "${mode}"`);
}
process.exit(0);
