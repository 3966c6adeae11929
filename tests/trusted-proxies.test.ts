/**
 * The client address behind proxies (TTS_TRUSTED_PROXIES), seen through the public rate limit:
 * each client address has its own bucket, so `RateLimit-Remaining` shows whose bucket a request
 * was counted in. Without trusted proxies (the default) every spoofed, chained or invalid
 * X-Forwarded-For is counted in the TCP peer's bucket; with trusted proxies (addresses and CIDR
 * ranges, or a hop count) the first untrusted hop is the client, and only a valid IP is taken from
 * the header. The variable is validated at start with a message naming it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ConfigError } from '@tts/common';
import { loadFacadeConfig, parseTrustedProxies } from '@tts/facade';
import { startLoneFacade, type LoneFacade } from './support/platform.js';

/** A public operation counted per client address (30 per minute). */
const PUBLIC_PATH = '/api/auth/challenge';
/** `RateLimit-Remaining` of a fresh bucket after its first request. */
const FRESH = 29;

/** A facade alone (no scheduler is needed for the challenge) trusting `trusted`. */
function facadeTrusting(trusted: string | undefined): { remaining: (forwardedFor?: string) => Promise<number>; stop: () => Promise<void>; ready: Promise<void> } {
  let lone: LoneFacade | undefined;
  const ready = (async () => {
    lone = await startLoneFacade({ trustedProxies: parseTrustedProxies(trusted) });
  })();
  return {
    ready,
    async remaining(forwardedFor) {
      const res = await fetch(`${lone!.facade.url}${PUBLIC_PATH}`, { headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor } });
      assert.equal(res.status, 200, await res.clone().text());
      await res.arrayBuffer();
      return Number(res.headers.get('ratelimit-remaining'));
    },
    async stop() {
      await lone?.stop();
    },
  };
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
  const all = [none, loopback, oneHop, twoHops];
  before(async () => {
    await Promise.all(all.map((f) => f.ready));
  });
  after(async () => {
    await Promise.all(all.map((f) => f.stop()));
  });

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
