/** The anti-bot pass: a challenge solved in a Web Worker, redeemed for an HttpOnly cookie. */
import { getJson, postForm } from './api.js';
import type { Schema } from './schema.js';

let passUntil = 0;

/** True while a pass obtained by this page is still valid. */
export function hasPass(): boolean {
  return Date.now() / 1000 < passUntil - 30;
}

/** Forgets the pass (the server refused it). */
export function dropPass(): void {
  passUntil = 0;
}

/** Obtains a pass unless this page holds one. */
export async function ensurePass(): Promise<void> {
  if (hasPass()) return;
  const c = await getJson<Schema<'Challenge'>>('/api/auth/challenge');
  const worker = new Worker(new URL('./challenge-worker.ts', import.meta.url), { type: 'module' });
  try {
    const solved = await new Promise<{ solution: string }>((resolve, reject) => {
      worker.onmessage = (e: MessageEvent<{ solution?: string; error?: string }>) => (e.data.solution ? resolve({ solution: e.data.solution }) : reject(new Error(e.data.error ?? 'no solution')));
      worker.onerror = (e) => reject(new Error(e.message));
      worker.postMessage({ challenge: c.challenge, difficultyBits: c.difficulty_bits });
    });
    const { body } = await postForm<Schema<'PassIssued'>>('/api/auth/challenge', { challenge: c.challenge, solution: solved.solution } satisfies Schema<'ChallengeSolution'>);
    passUntil = body.expires_unix;
  } finally {
    worker.terminate();
  }
}
