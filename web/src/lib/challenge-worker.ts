/**
 * Solves the anti-bot proof of work off the main thread: finds a solution such that
 * SHA-256(`<challenge>:<solution>`) starts with `difficultyBits` zero bits.
 */
interface Task { readonly challenge: string; readonly difficultyBits: number }

function leadingZeroBits(hash: Uint8Array): number {
  let bits = 0;
  for (const byte of hash) {
    if (byte === 0) {
      bits += 8;
      continue;
    }
    return bits + Math.clz32(byte) - 24;
  }
  return bits;
}

async function solve(task: Task): Promise<{ solution: string; attempts: number }> {
  const encoder = new TextEncoder();
  const prefix = `${task.challenge}:`;
  const salt = Math.random().toString(36).slice(2, 8);
  for (let i = 0; ; i++) {
    const solution = `${salt}${i.toString(36)}`;
    const hash = new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(prefix + solution)));
    if (leadingZeroBits(hash) >= task.difficultyBits) return { solution, attempts: i + 1 };
  }
}

self.onmessage = (e: MessageEvent<Task>) => {
  solve(e.data).then((r) => self.postMessage(r), (err: unknown) => self.postMessage({ error: String(err) }));
};
