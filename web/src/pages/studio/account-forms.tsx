/** The sign-in forms of the account page: continue as a guest, register (or turn the guest into an account), log in. */
import { useState } from 'preact/hooks';
import { logIn, register, startGuest } from './studio-api.js';
import { useAction, type OutcomeControl } from '../../components/outcome.js';

/** "Continue as a guest": a guest session with no account. */
export function GuestStart(props: { outcome: OutcomeControl; label?: string; onDone?: () => void }) {
  const [busy, run] = useAction(props.outcome);
  const start = () =>
    run(async () => {
      await startGuest();
      props.onDone?.();
      return 'You continue as a guest.';
    });
  return (
    <button type="button" onClick={() => void start()} disabled={busy}>
      {props.label ?? 'Continue as a guest'}
    </button>
  );
}

/** The registration form; with a guest session the guest becomes this account, keeping its presets. */
export function RegisterForm(props: { outcome: OutcomeControl; upgrade: boolean; onDone: () => void }) {
  const [username, setUsername] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [busy, run] = useAction(props.outcome);
  const submit = (e: Event) => {
    e.preventDefault();
    return run(async () => {
      const session = await register({ password, ...(username.trim() ? { username: username.trim() } : {}), ...(email.trim() ? { email: email.trim() } : {}) });
      setPassword('');
      props.onDone();
      return `Registered as ${session.user.username ?? session.user.email ?? 'a new account'}; you are signed in.`;
    });
  };
  return (
    <form class="card" onSubmit={(e) => void submit(e)} aria-labelledby="register-title">
      <h2 id="register-title">{props.upgrade ? 'Register this guest account' : 'Register'}</h2>
      {props.upgrade && <p class="hint">Your presets and share links stay with the account.</p>}
      <div class="row">
        <div class="field">
          <label for="register-username">Username</label>
          <input id="register-username" autoComplete="username" value={username} onInput={(e) => setUsername(e.currentTarget.value)} aria-describedby="register-username-hint" />
          <p id="register-username-hint" class="hint">
            3 to 32 letters, digits, dots, dashes or underscores.
          </p>
        </div>
        <div class="field">
          <label for="register-email">Email (optional)</label>
          <input id="register-email" type="email" autoComplete="email" value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        </div>
      </div>
      <label for="register-password">Password</label>
      <input id="register-password" type="password" autoComplete="new-password" value={password} onInput={(e) => setPassword(e.currentTarget.value)} aria-describedby="register-password-hint" />
      <p id="register-password-hint" class="hint">
        At least 12 characters; a few unrelated words make a good one. Common or breached passwords are refused.
      </p>
      <div class="actions">
        <button type="submit" disabled={busy || !password || (!username.trim() && !email.trim())}>
          Register
        </button>
      </div>
    </form>
  );
}

/** The log-in form: username or email, and the password. */
export function LoginForm(props: { outcome: OutcomeControl; onDone: () => void }) {
  const [login, setLogin] = useState('');
  const [password, setPassword] = useState('');
  const [busy, run] = useAction(props.outcome);
  const submit = (e: Event) => {
    e.preventDefault();
    return run(async () => {
      const session = await logIn(login.trim(), password);
      setPassword('');
      props.onDone();
      return `Logged in as ${session.user.username ?? session.user.email ?? login}.`;
    });
  };
  return (
    <form class="card" onSubmit={(e) => void submit(e)} aria-labelledby="login-title">
      <h2 id="login-title">Log in</h2>
      <label for="login-name">Username or email</label>
      <input id="login-name" autoComplete="username" value={login} onInput={(e) => setLogin(e.currentTarget.value)} />
      <label for="login-password">Password</label>
      <input id="login-password" type="password" autoComplete="current-password" value={password} onInput={(e) => setPassword(e.currentTarget.value)} />
      <div class="actions">
        <button type="submit" disabled={busy || !login.trim() || !password}>
          Log in
        </button>
      </div>
    </form>
  );
}
