/**
 * The credentials a person gives the application, kept in the browser: the studio session token
 * (localStorage, so a studio sign-in survives a reload, ended by logging out), and the API key and
 * administrator key (sessionStorage: forgotten when the tab closes). Components follow changes
 * with useCredentials(); a 401 answer to a call made with one of them forgets it.
 */
import { useEffect, useState } from 'preact/hooks';
import type { Auth } from './api.js';

export interface Credentials {
  /** X-Studio-Token of a studio session. */
  readonly studioToken?: string;
  /** X-Admin-Key. */
  readonly adminKey?: string;
  /** An API key (X-API-Key). */
  readonly apiKey?: string;
}

const KEYS = { studioToken: 'tts.studio-token', adminKey: 'tts.admin-key', apiKey: 'tts.api-key' } as const;
const storeOf = (k: keyof Credentials): Storage => (k === 'studioToken' ? localStorage : sessionStorage);

function read(): Credentials {
  const out: Record<string, string> = {};
  for (const k of Object.keys(KEYS) as (keyof Credentials)[]) {
    const v = storeOf(k).getItem(KEYS[k]);
    if (v) out[k] = v;
  }
  return out;
}

let current: Credentials = read();
const listeners = new Set<(c: Credentials) => void>();

/** The credentials now. */
export function credentials(): Credentials {
  return current;
}

/** Sets (a string) or forgets (undefined) one credential. */
export function setCredential(k: keyof Credentials, value: string | undefined): void {
  if (value) storeOf(k).setItem(KEYS[k], value);
  else storeOf(k).removeItem(KEYS[k]);
  current = read();
  for (const l of listeners) l(current);
}

/** The headers of a call made with `auth`. */
export function credentialHeaders(auth: Auth): Record<string, string> {
  if (auth === 'studio' && current.studioToken) return { 'x-studio-token': current.studioToken };
  if (auth === 'admin' && current.adminKey) return { 'x-admin-key': current.adminKey };
  if (auth === 'apiKey' && current.apiKey) return { 'x-api-key': current.apiKey };
  return {};
}

/** A 401 to a call made with `auth`: that credential is no longer good. */
export function forgetRejected(auth: Auth): void {
  if (auth === 'studio') setCredential('studioToken', undefined);
  else if (auth === 'admin') setCredential('adminKey', undefined);
  else if (auth === 'apiKey') setCredential('apiKey', undefined);
}

/** The credentials, re-rendering the component when one changes. */
export function useCredentials(): Credentials {
  const [c, setC] = useState(current);
  useEffect(() => {
    listeners.add(setC);
    setC(current);
    return () => {
      listeners.delete(setC);
    };
  }, []);
  return c;
}
