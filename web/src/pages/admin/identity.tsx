/**
 * Who an administration page acts as. The studio pages (VIP requests, users, abuse reports) use
 * the studio session when one is stored and its user has the admin role (GET /api/studio/auth/me
 * tells); otherwise they ask for the administrator key. The API key and hub token pages always
 * need the administrator key. The page says which identity is in use.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../../lib/api.js';
import { useCredentials } from '../../lib/credentials.js';
import { messageFor } from '../../lib/messages.js';
import { ForgetKey, KeyGate } from '../../components/key-gate.js';
import type { AdminAuth } from './admin-api.js';
import { getMe } from '../studio/studio-api.js';
import { who } from './format.js';

/** What the stored studio session is good for. */
type StudioCheck =
  | { readonly state: 'none' }
  | { readonly state: 'checking' }
  | { readonly state: 'admin'; readonly name: string }
  | { readonly state: 'not-admin'; readonly name: string }
  | { readonly state: 'failed'; readonly message: string };

/** Checks the stored studio session (again when it changes). */
function useStudioCheck(token: string | undefined): StudioCheck {
  const [check, setCheck] = useState<StudioCheck>(token ? { state: 'checking' } : { state: 'none' });
  useEffect(() => {
    if (!token) {
      setCheck({ state: 'none' });
      return;
    }
    let current = true;
    setCheck({ state: 'checking' });
    getMe().then(
      (me) => {
        if (current) setCheck({ state: me.user.role === 'admin' ? 'admin' : 'not-admin', name: who(me.user) });
      },
      (err: unknown) => {
        // A 401 forgets the token (the credentials change and this runs again).
        if (current && !(err instanceof ApiError && err.status === 401)) setCheck({ state: 'failed', message: messageFor(err) });
      },
    );
    return () => {
      current = false;
    };
  }, [token]);
  return check;
}

/** The administrator key in use, with the button that forgets it. */
function AdminKeyIdentity() {
  return (
    <p class="admin-identity">
      <span>
        Acting with the <strong>administrator key</strong> (kept in this tab only).
      </span>
      <ForgetKey kind="adminKey" />
    </p>
  );
}

/**
 * The studio-administration content, given the credential to call with: the studio admin session
 * when there is one, else the administrator key (asked for until given).
 */
export function StudioAdminGate(props: { children: (auth: AdminAuth) => ComponentChildren }) {
  const creds = useCredentials();
  const check = useStudioCheck(creds.studioToken);
  if (check.state === 'checking') {
    return (
      <p class="admin-identity" role="status">
        Checking your studio session…
      </p>
    );
  }
  if (check.state === 'admin') {
    return (
      <>
        <p class="admin-identity">
          <span>
            Acting as studio administrator <strong>{check.name}</strong> (your studio session). Decisions are recorded under this account.
          </span>
        </p>
        {props.children('studio')}
      </>
    );
  }
  return (
    <>
      {check.state === 'not-admin' && (
        <p class="admin-identity">
          Your studio account <strong>{check.name}</strong> is not an administrator: give the administrator key instead.
        </p>
      )}
      {check.state === 'failed' && (
        <p class="admin-identity error" role="alert">
          Your studio session could not be checked ({check.message}). Give the administrator key instead.
        </p>
      )}
      <AdminKeyOnly>{props.children('admin')}</AdminKeyOnly>
    </>
  );
}

/** Content that needs the administrator key: asked for until given, then shown with the key in use. */
export function AdminKeyOnly(props: { children: ComponentChildren }) {
  return (
    <KeyGate kind="adminKey">
      <AdminKeyIdentity />
      {props.children}
    </KeyGate>
  );
}
