/**
 * Pages that need the administrator key or an API key show this form until one is given; the key
 * stays in this tab only (sessionStorage). Children render once the key is there.
 */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { setCredential, useCredentials } from '../lib/credentials.js';

const LABELS = {
  adminKey: { title: 'Administrator key', hint: 'The key set as TTS_ADMIN_KEY (in embedded mode written under DATA_DIR on first start).' },
  apiKey: { title: 'API key', hint: 'An API key (tts_…) created by an administrator.' },
} as const;

export function KeyGate(props: { kind: 'adminKey' | 'apiKey'; children: ComponentChildren }) {
  const creds = useCredentials();
  const [value, setValue] = useState('');
  const label = LABELS[props.kind];
  if (creds[props.kind]) return <>{props.children}</>;
  const id = `key-${props.kind}`;
  return (
    <form
      class="card key-gate"
      onSubmit={(e) => {
        e.preventDefault();
        if (value.trim()) setCredential(props.kind, value.trim());
      }}
    >
      <h2>{label.title} needed</h2>
      <label for={id}>{label.title}</label>
      <input id={id} type="password" autoComplete="off" value={value} onInput={(e) => setValue(e.currentTarget.value)} aria-describedby={`${id}-hint`} />
      <p id={`${id}-hint`} class="hint">
        {label.hint} It is kept in this tab only.
      </p>
      <div class="actions">
        <button type="submit" disabled={!value.trim()}>
          Use this key
        </button>
      </div>
    </form>
  );
}

/** A "forget the key" button for pages behind a KeyGate. */
export function ForgetKey(props: { kind: 'adminKey' | 'apiKey' }) {
  return (
    <button type="button" class="secondary" onClick={() => setCredential(props.kind, undefined)}>
      Forget the {props.kind === 'adminKey' ? 'administrator key' : 'API key'}
    </button>
  );
}
