/**
 * The validating certificate provider behind TTS_GRPC_TLS_*: it passes on the files' material
 * only when it validates, so a half-written rotation (a new certificate before its key) keeps
 * the last good material, and the completed rotation is passed on. Certificates are made with the
 * openssl CLI.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client, credentials, type ChannelCredentials } from '@grpc/grpc-js';
import { startGrpcServer } from './server.js';
import { configureGrpcTls, readGrpcTlsConfig, ValidatingFileCertificateProvider, type GrpcTlsConfig } from './tls.js';

describe('ValidatingFileCertificateProvider', () => {
  let dir: string;
  const f = (name: string): string => join(dir, name);

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'tts-tls-spec-'));
    const ssl = (...args: string[]): void => void execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
    const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
    ssl('req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '1', '-subj', '/CN=spec-ca');
    for (const leaf of ['a', 'b']) {
      ssl('req', ...ec, '-keyout', `${leaf}.key`, '-out', `${leaf}.csr`, '-subj', `/CN=${leaf}`);
      ssl('x509', '-req', '-in', `${leaf}.csr`, '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', `${leaf}.crt`, '-days', '1');
    }
    copyFileSync(f('a.crt'), f('tls.crt'));
    copyFileSync(f('a.key'), f('tls.key'));
  });

  after(() => rmSync(dir, { recursive: true, force: true }));

  test('a half-written rotation keeps the last good material; the completed one is passed on', async () => {
    const config: GrpcTlsConfig = readGrpcTlsConfig({ TTS_GRPC_TLS_CERT: f('tls.crt'), TTS_GRPC_TLS_KEY: f('tls.key'), TTS_GRPC_TLS_CA: f('ca.crt') })!;
    assert.equal(config.clientAuth, 'require');
    const problems: string[] = [];
    const provider = new ValidatingFileCertificateProvider(config, (m) => problems.push(m));
    const served: string[] = [];
    provider.addIdentityCertificateListener((u) => served.push(u?.certificate.toString() ?? 'none'));
    assert.equal(await provider.refresh(), true);
    assert.deepEqual(served, [readFileSync(f('a.crt'), 'utf8')]);

    // The new certificate lands before its key: not passed on, the problem named.
    copyFileSync(f('b.crt'), f('tls.crt'));
    assert.equal(await provider.refresh(), true, 'the previous material still serves');
    assert.equal(served.length, 1);
    assert.match(problems.join('\n'), /TTS_GRPC_TLS_KEY does not match/);

    copyFileSync(f('b.key'), f('tls.key'));
    await provider.refresh();
    assert.equal(served.length, 2);
    assert.equal(served[1], readFileSync(f('b.crt'), 'utf8'));

    // An unreadable or garbled file later: still the last good material.
    writeFileSync(f('tls.crt'), 'not a certificate');
    await provider.refresh();
    rmSync(f('tls.key'));
    await provider.refresh();
    assert.equal(served.length, 2);
    assert.equal(problems.length, 3);
    // A listener added later gets the current material (on the next tick, as grpc-js expects).
    const late: string[] = [];
    provider.addCaCertificateListener((u) => late.push(u?.caCertificate.toString() ?? 'none'));
    assert.equal(late.length, 0);
    await new Promise((r) => process.nextTick(r));
    assert.deepEqual(late, [readFileSync(f('ca.crt'), 'utf8')]);
    provider.stop();
  });

  test('TTS_GRPC_TLS_CLIENT_AUTH: require refuses a client without a certificate, none admits it; plaintext is refused either way', async () => {
    copyFileSync(f('a.crt'), f('tls.crt'));
    copyFileSync(f('a.key'), f('tls.key'));
    const ca = readFileSync(f('ca.crt'));
    /** "ok" or "refused" for one grpc.health.v1 Check with these credentials. */
    const check = (address: string, creds: ChannelCredentials): Promise<string> =>
      new Promise((resolve) => {
        const client = new Client(address, creds, { 'grpc.use_local_subchannel_pool': 1, 'grpc.ssl_target_name_override': 'a' });
        const identity = (b: Buffer): Buffer => b;
        client.makeUnaryRequest('/grpc.health.v1.Health/Check', identity, identity, Buffer.alloc(0), { deadline: Date.now() + 5000 }, (err) => {
          client.close();
          resolve(err ? 'refused' : 'ok');
        });
      });
    // The leaf certificates name no host: skip the name check, the CA check stays.
    const withCert = (): ChannelCredentials => credentials.createSsl(ca, readFileSync(f('a.key')), readFileSync(f('a.crt')), { checkServerIdentity: () => undefined });
    const withoutCert = (): ChannelCredentials => credentials.createSsl(ca, null, null, { checkServerIdentity: () => undefined });
    try {
      for (const [mode, expected] of [['require', 'refused'], ['none', 'ok']] as const) {
        await configureGrpcTls(readGrpcTlsConfig({ TTS_GRPC_TLS_CERT: f('tls.crt'), TTS_GRPC_TLS_KEY: f('tls.key'), TTS_GRPC_TLS_CA: f('ca.crt'), TTS_GRPC_TLS_CLIENT_AUTH: mode }));
        const server = await startGrpcServer({ services: [], reflection: false });
        try {
          assert.equal(await check(server.address, withCert()), 'ok', `${mode}: a client with a certificate`);
          assert.equal(await check(server.address, withoutCert()), expected, `${mode}: a client without a certificate`);
          assert.equal(await check(server.address, credentials.createInsecure()), 'refused', `${mode}: plaintext`);
        } finally {
          await server.stop(0);
        }
      }
    } finally {
      await configureGrpcTls(undefined);
    }
  });
});
