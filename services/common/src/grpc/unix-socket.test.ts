/**
 * gRPC servers on Unix domain socket files: private directory and file modes, a call through the
 * socket, removal on stop, a stale file replaced and a live one left alone.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, lstatSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { Client, credentials } from '@grpc/grpc-js';
import { startGrpcServer } from './server.js';

/** A fresh directory for one test, removed afterwards. */
function scratch(): string {
  return mkdtempSync(path.join(tmpdir(), 'tts-uds-'));
}

test('a server on a socket file: 0700 directory, 0600 file, reachable, removed on stop', async () => {
  const root = scratch();
  try {
    const socket = path.join(root, 'run', 'grpc', 'one.sock');
    const server = await startGrpcServer({ socketPath: socket, services: [] });
    assert.equal(server.address, `unix:${socket}`);
    assert.equal(server.port, 0);
    assert.equal(statSync(path.dirname(socket)).mode & 0o777, 0o700);
    assert.ok(lstatSync(socket).isSocket());
    assert.equal(statSync(socket).mode & 0o777, 0o600);
    const client = new Client(server.address, credentials.createInsecure());
    await new Promise<void>((resolve, reject) => client.waitForReady(Date.now() + 10_000, (err) => (err ? reject(err) : resolve())));
    client.close();
    await server.stop(1000);
    assert.ok(!existsSync(socket), 'socket file removed');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('a stale socket file left by a killed process is replaced; a live one is refused', async () => {
  const root = scratch();
  try {
    const socket = path.join(root, 'stale.sock');
    const child = spawn(process.execPath, ['-e', `require('node:net').createServer().listen(${JSON.stringify(socket)}, () => process.kill(process.pid, 'SIGKILL'))`], { stdio: 'ignore' });
    await once(child, 'exit');
    assert.ok(lstatSync(socket).isSocket(), 'the killed process left its socket file');
    const server = await startGrpcServer({ socketPath: socket, services: [] });
    try {
      await assert.rejects(startGrpcServer({ socketPath: socket, services: [] }), /already listens/);
      assert.ok(lstatSync(socket).isSocket(), 'the live server keeps its file');
    } finally {
      await server.stop(1000);
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
