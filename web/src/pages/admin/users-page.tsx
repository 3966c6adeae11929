/**
 * /admin/users: the studio users (newest first) with a search over name, e-mail and id and a
 * filter (VIP, administrators, disabled, guests). Per user: extend VIP by days or set its end
 * date, end VIP, disable or enable, change the role, and end every session (after a confirmation).
 */
import { useCallback, useEffect, useState } from 'preact/hooks';
import { listUsers, revokeSessions, updateUser, type AdminAuth, type StudioUser, type UserUpdate } from './admin-api.js';
import { AdminFrame } from './admin-frame.js';
import { StudioAdminGate } from './identity.js';
import { OutcomeView, useAction, useOutcome, type OutcomeControl } from '../../components/outcome.js';
import { who } from './format.js';
import { when } from '../../lib/format.js';
import { Fact } from '../../components/fact.js';
import { SelectField } from '../../components/select-field.js';
import { Confirm } from '../../components/confirm.js';

type Show = 'all' | 'vip' | 'admin' | 'disabled' | 'guest';

const SHOW: readonly (readonly [Show, string])[] = [
  ['all', 'Everyone'],
  ['vip', 'VIP members'],
  ['admin', 'Administrators'],
  ['disabled', 'Disabled'],
  ['guest', 'Guests'],
];

const DAY_MS = 86_400_000;

function matches(u: StudioUser, show: Show, query: string): boolean {
  if (show === 'vip' && !u.vip) return false;
  if (show === 'admin' && u.role !== 'admin') return false;
  if (show === 'disabled' && !u.disabled) return false;
  if (show === 'guest' && u.kind !== 'guest') return false;
  const q = query.trim().toLowerCase();
  return !q || [u.username, u.email, u.user_id].some((v) => v?.toLowerCase().includes(q));
}

/** The VIP end after adding `days` to the later of now and the current end. */
function extended(user: StudioUser, days: number): string {
  const current = user.vip && user.vip_until ? Date.parse(user.vip_until) : 0;
  return new Date(Math.max(Date.now(), current) + days * DAY_MS).toISOString();
}

/** The controls of one user, shown when the person opens them. */
function UserControls(props: { auth: AdminAuth; user: StudioUser; out: OutcomeControl; onChange: (u: StudioUser) => void }) {
  const { auth, user, out } = props;
  const [days, setDays] = useState('30');
  const [until, setUntil] = useState(user.vip_until ? user.vip_until.slice(0, 10) : '');
  const [role, setRole] = useState(user.role);
  const [confirming, setConfirming] = useState(false);
  const [busy, run] = useAction(out);
  const name = who(user);
  const base = `user-${user.user_id}`;

  const patch = (change: UserUpdate, said: (u: StudioUser) => string) =>
    run(async () => {
      const updated = await updateUser(auth, user.user_id, change);
      props.onChange(updated);
      return said(updated);
    });
  const dayCount = Number(days);
  const daysValid = Number.isInteger(dayCount) && dayCount >= 1 && dayCount <= 3650;

  return (
    <div class="admin-controls" id={`${base}-controls`}>
      <form
        class="row admin-inline"
        onSubmit={(e) => {
          e.preventDefault();
          if (daysValid) void patch({ vip_until: extended(user, dayCount) }, (u) => `${name} is VIP until ${when(u.vip_until)}.`);
        }}
      >
        <div class="field">
          <label for={`${base}-days`}>Extend VIP by (days)</label>
          <input id={`${base}-days`} type="number" min={1} max={3650} step={1} inputMode="numeric" value={days} onInput={(e) => setDays(e.currentTarget.value)} />
        </div>
        <button type="submit" disabled={busy || !daysValid}>
          Extend VIP
        </button>
      </form>
      <form
        class="row admin-inline"
        onSubmit={(e) => {
          e.preventDefault();
          if (until) void patch({ vip_until: new Date(`${until}T23:59:59`).toISOString() }, (u) => `${name} is VIP until ${when(u.vip_until)}.`);
        }}
      >
        <div class="field">
          <label for={`${base}-until`}>VIP until (end of the day)</label>
          <input id={`${base}-until`} type="date" value={until} onInput={(e) => setUntil(e.currentTarget.value)} />
        </div>
        <button type="submit" class="secondary" disabled={busy || !until}>
          Set VIP end
        </button>
      </form>
      <form
        class="row admin-inline"
        onSubmit={(e) => {
          e.preventDefault();
          void patch({ role }, (u) => `${name} is now ${u.role === 'admin' ? 'an administrator' : 'a user'}.`);
        }}
      >
        <div class="field">
          <label for={`${base}-role`}>Role</label>
          <select id={`${base}-role`} value={role} onChange={(e) => setRole(e.currentTarget.value === 'admin' ? 'admin' : 'user')}>
            <option value="user">User</option>
            <option value="admin">Administrator</option>
          </select>
        </div>
        <button type="submit" class="secondary" disabled={busy || role === user.role}>
          Save role
        </button>
      </form>
      <div class="actions">
        {user.vip && (
          <button type="button" class="secondary" disabled={busy} onClick={() => void patch({ vip_until: null }, () => `VIP of ${name} ended.`)}>
            End VIP
          </button>
        )}
        <button
          type="button"
          class="secondary"
          disabled={busy}
          onClick={() => void patch({ disabled: !user.disabled }, (u) => (u.disabled ? `${name} is disabled; every session of theirs has ended.` : `${name} is enabled again.`))}
        >
          {user.disabled ? 'Enable' : 'Disable'}
        </button>
        {!confirming && (
          <button type="button" class="secondary" disabled={busy} onClick={() => setConfirming(true)}>
            Revoke sessions
          </button>
        )}
      </div>
      {confirming && (
        <Confirm
          id={`${base}-confirm`}
          question={`End every session of ${name}? They will have to sign in again.`}
          yes="End every session"
          busy={busy}
          onYes={() =>
            void run(async () => {
              const ended = await revokeSessions(auth, user.user_id);
              setConfirming(false);
              return `Ended ${ended} session${ended === 1 ? '' : 's'} of ${name}.`;
            })
          }
          onNo={() => setConfirming(false)}
        />
      )}
    </div>
  );
}

function UserItem(props: { auth: AdminAuth; user: StudioUser; out: OutcomeControl; onChange: (u: StudioUser) => void }) {
  const { user } = props;
  const [open, setOpen] = useState(false);
  const name = who(user);
  return (
    <li class="admin-item" data-user-id={user.user_id}>
      <h3>
        <span>{name}</span>
        {user.role === 'admin' && <span class="badge">administrator</span>}
        {user.vip && <span class="badge">VIP</span>}
        {user.disabled && <span class="badge">disabled</span>}
      </h3>
      <dl class="admin-facts">
        <Fact term="Kind">{user.kind}</Fact>
        <Fact term="E-mail">{user.email ?? '—'}</Fact>
        <Fact term="VIP until">{user.vip ? when(user.vip_until) : 'not VIP'}</Fact>
        <Fact term="Created">{when(user.created_at)}</Fact>
        <Fact term="Last sign-in">{when(user.last_login_at)}</Fact>
        <Fact term="Id">{user.user_id}</Fact>
      </dl>
      <div class="actions">
        <button type="button" class="secondary" aria-expanded={open} aria-controls={`user-${user.user_id}-controls`} aria-label={`${open ? 'Close' : 'Manage'} ${name}`} onClick={() => setOpen(!open)}>
          {open ? 'Close' : 'Manage'}
        </button>
      </div>
      {open && <UserControls {...props} />}
    </li>
  );
}

function UserList(props: { auth: AdminAuth }) {
  const { auth } = props;
  const [users, setUsers] = useState<StudioUser[] | undefined>();
  const [query, setQuery] = useState('');
  const [show, setShow] = useState<Show>('all');
  const [outcome, out] = useOutcome();

  const load = useCallback(async () => {
    try {
      setUsers(await listUsers(auth));
    } catch (err) {
      out.fail(err);
    }
  }, [auth, out]);
  useEffect(() => {
    void load();
  }, [load]);

  const shown = users?.filter((u) => matches(u, show, query)) ?? [];
  const replace = (u: StudioUser) => setUsers((all) => all?.map((x) => (x.user_id === u.user_id ? u : x)));
  return (
    <section class="card" aria-labelledby="user-list">
      <h2 id="user-list">Studio users</h2>
      <div class="row admin-toolbar">
        <div class="field">
          <label for="user-search">Search</label>
          <input id="user-search" type="search" placeholder="Name, e-mail or id" value={query} onInput={(e) => setQuery(e.currentTarget.value)} />
        </div>
        <SelectField id="user-show" label="Show" value={show} options={SHOW} onChange={(v) => setShow(v as Show)} />
        <button type="button" class="secondary" onClick={() => void load()}>
          Refresh
        </button>
      </div>
      <p class="hint">Disabling a user or revoking their sessions signs them out at once. You cannot demote or disable yourself.</p>
      <OutcomeView outcome={outcome} />
      {users === undefined ? (
        <p>Loading…</p>
      ) : (
        <>
          <p class="hint" aria-live="polite">
            {shown.length} of {users.length} users shown.
          </p>
          <ul class="admin-list">
            {shown.map((u) => (
              <UserItem key={u.user_id} auth={auth} user={u} out={out} onChange={replace} />
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

/** /admin/users: the studio users. */
export function UsersPage() {
  return (
    <AdminFrame title="Users" intro="Studio accounts: VIP membership, role, disabling and sessions.">
      <StudioAdminGate>{(auth) => <UserList auth={auth} />}</StudioAdminGate>
    </AdminFrame>
  );
}
