/**
 * The client address behind proxies (TTS_TRUSTED_PROXIES), seen through the public rate limit:
 * each client address has its own bucket, so `RateLimit-Remaining` shows whose bucket a request
 * was counted in. Without trusted proxies (the default) every spoofed, chained or invalid
 * X-Forwarded-For is counted in the TCP peer's bucket; with trusted proxies (addresses and CIDR
 * ranges, or a hop count) the first untrusted hop is the client, and only a valid IP is taken from
 * the header. The variable is validated at start with a message naming it.
 */
import assert from 'node:assert/strict';
import { request, type OutgoingHttpHeaders } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { ConfigError } from '@tts/common';
import { loadFacadeConfig, parseTrustedProxies } from '@tts/facade';
import { startLoneFacade, type LoneFacade } from './support/platform.js';

/** A public operation counted per client address (30 per minute). */
const PUBLIC_PATH = '/api/auth/challenge';
/** `RateLimit-Remaining` of a fresh bucket after its first request. */
const FRESH = 29;
/** A job-token operation, counted per client address against the job_token profile (300 per minute). */
const JOB_TOKEN_PATH = '/api/web/jobs/job_proxies1/events?token=guess';
/** `RateLimit-Remaining` of a fresh job_token bucket after its first request. */
const FRESH_JOB_TOKEN = 299;

/** How a request reaches the facade. */
interface Via {
  /** X-Forwarded-For: one header, or several header lines (joined by the server with commas). */
  readonly forwardedFor?: string | string[];
  /** Loopback address the connection comes from (another peer than 127.0.0.1). */
  readonly from?: string;
  readonly path?: string;
}

/** A facade alone (no scheduler is needed for the challenge) trusting `trusted`. */
function facadeTrusting(trusted: string | undefined): { remaining: (forwardedFor?: string | Via) => Promise<number>; stop: () => Promise<void>; ready: Promise<void> } {
  let lone: LoneFacade | undefined;
  const ready = (async () => {
    lone = await startLoneFacade({ trustedProxies: parseTrustedProxies(trusted) });
  })();
  return {
    ready,
    async remaining(via) {
      const { forwardedFor, from, path = PUBLIC_PATH } = typeof via === 'object' ? via : { forwardedFor: via };
      const headers: OutgoingHttpHeaders = forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor };
      const { status, body, limitRemaining } = await new Promise<{ status: number; body: string; limitRemaining: string | undefined }>((resolve, reject) => {
        const req = request(`${lone!.url}${path}`, { headers, ...(from === undefined ? {} : { localAddress: from }) }, (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => (text += d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, limitRemaining: res.headers['ratelimit-remaining'] as string | undefined }));
        });
        req.on('error', reject);
        req.end();
      });
      assert.equal(status, path === PUBLIC_PATH ? 200 : 403, body);
      return Number(limitRemaining);
    },
    async stop() {
      await lone?.stop();
    },
  };
}

/** Waits for `facades` before the suite's tests and stops them after. */
function startedAround(facades: readonly { ready: Promise<void>; stop: () => Promise<void> }[]): void {
  before(async () => {
    await Promise.all(facades.map((f) => f.ready));
  });
  after(async () => {
    await Promise.all(facades.map((f) => f.stop()));
  });
}

describe('TTS_TRUSTED_PROXIES: configuration', () => {
  test('unset, "none" and "0" trust nobody; hop counts and address lists parse', () => {
    for (const raw of [undefined, '', ' ', 'none', '0']) assert.equal(loadFacadeConfig({ TTS_TRUSTED_PROXIES: raw }).trustedProxies.kind, 'none', String(raw));
    assert.deepEqual(loadFacadeConfig({ TTS_TRUSTED_PROXIES: '2' }).trustedProxies, { kind: 'hops', hops: 2 });
    const ranges = loadFacadeConfig({ TTS_TRUSTED_PROXIES: '10.0.0.0/8, fd00::/8,192.0.2.7' }).trustedProxies;
    assert.equal(ranges.kind, 'ranges');
    assert.deepEqual(ranges.kind === 'ranges' ? ranges.ranges : [], ['10.0.0.0/8', 'fd00::/8', '192.0.2.7']);
  });

  test('a bad value stops the start with a message naming the variable', () => {
    for (const raw of ['10.0.0.0/33', 'fd00::/129', 'proxy.example', '10.0.0.1/8/2', '10.0.0.1/', '33', '1,10.0.0.0/8', '256.1.1.1', 'loopback']) {
      assert.throws(
        () => loadFacadeConfig({ TTS_TRUSTED_PROXIES: raw }),
        (e: unknown) => e instanceof ConfigError && e.variable === 'TTS_TRUSTED_PROXIES' && e.message.startsWith('TTS_TRUSTED_PROXIES: '),
        raw,
      );
    }
  });
});

describe('TTS_TRUSTED_PROXIES: the client address over HTTP', () => {
  const none = facadeTrusting(undefined);
  const loopback = facadeTrusting('127.0.0.1,::1,10.0.0.0/8');
  const oneHop = facadeTrusting('1');
  const twoHops = facadeTrusting('2');
  startedAround([none, loopback, oneHop, twoHops]);

  test('default: spoofed, chained and invalid X-Forwarded-For all count in the peer bucket', async () => {
    const peer = await none.remaining();
    assert.equal(peer, FRESH);
    assert.equal(await none.remaining('203.0.113.1'), peer - 1, 'a spoofed address gets no bucket of its own');
    assert.equal(await none.remaining('203.0.113.2'), peer - 2, 'nor does another one');
    assert.equal(await none.remaining('198.51.100.3, 203.0.113.3'), peer - 3, 'nor a chain');
    assert.equal(await none.remaining('not-an-ip'), peer - 4, 'nor garbage');
  });

  test('trusted addresses: the address the trusted proxy saw is the client', async () => {
    const peer = await loopback.remaining();
    assert.equal(peer, FRESH);
    assert.equal(await loopback.remaining('203.0.113.10'), FRESH, 'the forwarded client has its own bucket');
    assert.equal(await loopback.remaining('203.0.113.10'), FRESH - 1, 'and is counted there');
    assert.equal(await loopback.remaining('203.0.113.11'), FRESH, 'another client, another bucket');
    assert.equal(await loopback.remaining(), peer - 1, 'the proxy itself still has its own');
  });

  test('trusted addresses, chained: forged entries left of the first untrusted hop are ignored', async () => {
    assert.equal(await loopback.remaining('198.51.100.20, 203.0.113.20'), FRESH, 'the rightmost untrusted hop');
    assert.equal(await loopback.remaining('203.0.113.20'), FRESH - 1, 'is the same client');
    assert.equal(await loopback.remaining('198.51.100.99, 203.0.113.20'), FRESH - 2, 'whatever is forged to its left');
    // A second proxy inside the trusted range (10.0.0.0/8) passes the walk on to its client.
    assert.equal(await loopback.remaining('198.51.100.40, 10.1.2.3'), FRESH, 'the client behind a trusted internal proxy');
    assert.equal(await loopback.remaining('198.51.100.40'), FRESH - 1);
    // Without spaces after the commas.
    assert.equal(await loopback.remaining('198.51.100.40,10.9.9.9'), FRESH - 2);
  });

  test('trusted addresses, invalid entries: the proxy that forwarded them is the client', async () => {
    const peer = await loopback.remaining();
    assert.equal(await loopback.remaining('not-an-ip'), peer - 1);
    assert.equal(await loopback.remaining('203.0.113.30, 999.1.1.1'), peer - 2, 'an invalid rightmost entry');
    assert.equal(await loopback.remaining('203.0.113.31:8080'), peer - 3, 'an address with a port is not an IP');
    assert.equal(await loopback.remaining(''), peer - 4, 'an empty header');
    assert.equal(await loopback.remaining('198.51.100.50, 10.0.0.1, junk'), peer - 5, 'garbage behind a trusted hop');
    assert.equal(await loopback.remaining('junk, 10.0.0.2'), FRESH, 'a trusted hop in front of garbage is the client');
  });

  test('a hop count: that many proxies in front, whatever their addresses', async () => {
    assert.equal(await oneHop.remaining('198.51.100.60, 203.0.113.60'), FRESH, 'one hop: the rightmost entry');
    assert.equal(await oneHop.remaining('203.0.113.60'), FRESH - 1);
    assert.equal(await oneHop.remaining('198.51.100.61, 203.0.113.61, 10.0.0.7'), FRESH, 'an internal address is a client too');
    assert.equal(await twoHops.remaining('198.51.100.62, 203.0.113.62'), FRESH, 'two hops: the entry before the last');
    assert.equal(await twoHops.remaining('198.51.100.62'), FRESH - 1);
    assert.equal(await twoHops.remaining('203.0.113.63'), FRESH, 'fewer entries than hops: the leftmost valid one');
    const peer = await oneHop.remaining();
    assert.equal(await oneHop.remaining('bogus'), peer - 1, 'garbage: the proxy is the client');
  });
});

describe('TTS_TRUSTED_PROXIES: spoofed, invalid and chained headers, and the job-token bucket', () => {
  const none = facadeTrusting(undefined);
  // Only 127.0.0.2 is the proxy: an ingress at another address than the clients'.
  const ingress = facadeTrusting('127.0.0.2');
  const loopback = facadeTrusting('127.0.0.0/8,::1');
  startedAround([none, ingress, loopback]);

  test('default: several X-Forwarded-For lines, IPv6 and mapped forms all count in the peer bucket', async () => {
    const peer = await none.remaining();
    assert.equal(await none.remaining({ forwardedFor: ['203.0.113.70', '198.51.100.70'] }), peer - 1, 'two header lines');
    assert.equal(await none.remaining('2001:db8::70'), peer - 2, 'an IPv6 address');
    assert.equal(await none.remaining('::ffff:203.0.113.71'), peer - 3, 'an IPv4-mapped address');
    assert.equal(await none.remaining(' , ,,'), peer - 4, 'empty entries');
    assert.equal(await none.remaining(`${'1.2.3.4,'.repeat(500)}5.6.7.8`), peer - 5, 'a very long chain');
  });

  test('default: a job-token route counts spoofed, chained and invalid headers in the peer bucket', async () => {
    const path = JOB_TOKEN_PATH;
    const peer = await none.remaining({ path });
    assert.equal(peer, FRESH_JOB_TOKEN);
    assert.equal(await none.remaining({ path, forwardedFor: '203.0.113.80' }), peer - 1, 'spoofed');
    assert.equal(await none.remaining({ path, forwardedFor: '198.51.100.80, 203.0.113.80' }), peer - 2, 'chained');
    assert.equal(await none.remaining({ path, forwardedFor: 'not-an-ip' }), peer - 3, 'invalid');
  });

  test('an ingress at its own address: its forwarded client is believed, the same header from any other peer is not', async () => {
    const direct = await ingress.remaining({ from: '127.0.0.1' });
    assert.equal(direct, FRESH);
    assert.equal(await ingress.remaining({ from: '127.0.0.1', forwardedFor: '203.0.113.90' }), direct - 1, 'a client spoofing the header counts as itself');
    assert.equal(await ingress.remaining({ from: '127.0.0.2', forwardedFor: '203.0.113.90' }), FRESH, 'through the ingress: the client it names');
    assert.equal(await ingress.remaining({ from: '127.0.0.2', forwardedFor: '203.0.113.91' }), FRESH, 'each client behind the ingress has its own bucket');
    assert.equal(await ingress.remaining({ from: '127.0.0.2', forwardedFor: '203.0.113.90' }), FRESH - 1);
    assert.equal(await ingress.remaining({ from: '127.0.0.2', forwardedFor: '198.51.100.92, 203.0.113.90' }), FRESH - 2, 'a forged entry left of the client changes nothing');
    const ingressOwn = await ingress.remaining({ from: '127.0.0.2', forwardedFor: 'not-an-ip' });
    assert.equal(ingressOwn, FRESH, 'garbage from the ingress: the ingress itself is the client');
    assert.equal(await ingress.remaining({ from: '127.0.0.2' }), ingressOwn - 1, 'as without a header');
    assert.equal(await ingress.remaining({ from: '127.0.0.3', forwardedFor: '203.0.113.90' }), FRESH, 'another untrusted peer counts as itself');
  });

  test('an ingress: the job-token bucket is the forwarded client\'s, and a spoofing peer cannot take it', async () => {
    const path = JOB_TOKEN_PATH;
    assert.equal(await ingress.remaining({ path, from: '127.0.0.2', forwardedFor: '203.0.113.100' }), FRESH_JOB_TOKEN);
    assert.equal(await ingress.remaining({ path, from: '127.0.0.2', forwardedFor: '203.0.113.100' }), FRESH_JOB_TOKEN - 1);
    const spoofer = await ingress.remaining({ path, from: '127.0.0.4', forwardedFor: '203.0.113.100' });
    assert.equal(spoofer, FRESH_JOB_TOKEN, "a direct peer claiming the client's address counts in its own bucket");
    assert.equal(await ingress.remaining({ path, from: '127.0.0.2', forwardedFor: '203.0.113.100' }), FRESH_JOB_TOKEN - 2, "the client's bucket is untouched");
    assert.equal(await ingress.remaining({ path, from: '127.0.0.2', forwardedFor: 'not-an-ip' }), FRESH_JOB_TOKEN, 'garbage: the ingress bucket');
  });

  test('a trusted range: chained proxies inside it are walked through, several header lines join in order', async () => {
    assert.equal(await loopback.remaining({ from: '127.0.0.5', forwardedFor: ['198.51.100.110', '127.0.0.9'] }), FRESH, 'the client behind two trusted hops');
    assert.equal(await loopback.remaining({ from: '127.0.0.6', forwardedFor: '198.51.100.110' }), FRESH - 1, 'is the same client');
    assert.equal(await loopback.remaining({ forwardedFor: '2001:db8::110' }), FRESH, 'an IPv6 client');
    assert.equal(await loopback.remaining({ forwardedFor: '2001:DB8:0::110' }), FRESH - 1, 'is the same client however it is spelled');
    assert.equal(await loopback.remaining({ forwardedFor: '::ffff:198.51.100.111' }), FRESH, 'an IPv4-mapped client');
    assert.equal(await loopback.remaining({ forwardedFor: '198.51.100.111' }), FRESH - 1, 'is its IPv4 address');
  });
});
