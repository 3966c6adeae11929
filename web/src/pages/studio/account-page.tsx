/**
 * /studio: the account. Signed out: continue as a guest, register or log in. Signed in: who you
 * are (name, role, tier, VIP and its end, synthesis used against the limits), registering a guest
 * account, and logging out.
 */
import { useEffect, useState } from 'preact/hooks';
import { useCredentials } from '../../lib/credentials.js';
import { GuestStart, LoginForm, RegisterForm } from './account-forms.js';
import { count, day, when } from '../../lib/format.js';
import { OutcomeView, useAction, useOutcome, type OutcomeControl } from '../../components/outcome.js';
import { StudioFrame } from './studio-frame.js';
import { getMe, logOut, type StudioMe } from './studio-api.js';
import { Fact } from '../../components/fact.js';

const TIERS: Readonly<Record<string, string>> = { studio_guest: 'Guest', studio_member: 'Member', studio_vip: 'VIP' };

function Usage(props: { me: StudioMe }) {
  const s = props.me.synthesis;
  return (
    <dl class="studio-facts">
      <Fact term="Tier">{TIERS[s.tier] ?? s.tier}</Fact>
      <Fact term="Requests per minute">{count(s.rate_per_minute)}</Fact>
      <Fact term="Longest text">{count(s.max_text_length)} characters</Fact>
      <div>
        <dt>Characters today</dt>
        <dd>
          {count(s.used?.day_characters ?? 0)} of {count(s.daily_char_quota)}
        </dd>
      </div>
      <div>
        <dt>Characters this month</dt>
        <dd>
          {count(s.used?.month_characters ?? 0)} of {count(s.monthly_char_quota)}
        </dd>
      </div>
      <div>
        <dt>Presets, share links</dt>
        <dd>
          up to {count(props.me.limits.presets)}, {count(props.me.limits.active_shares)} active
        </dd>
      </div>
    </dl>
  );
}

function Profile(props: { me: StudioMe; outcome: OutcomeControl }) {
  const { user } = props.me;
  const [busy, run] = useAction(props.outcome);
  const name = user.kind === 'guest' ? 'Guest' : (user.username ?? user.email ?? user.user_id);
  const leave = () =>
    run(async () => {
      await logOut();
      return 'You are logged out.';
    });
  return (
    <section class="card" aria-labelledby="profile-title">
      <h2 id="profile-title">
        Signed in as <span class="studio-name">{name}</span>
      </h2>
      <dl class="studio-facts">
        <Fact term="Account">{user.kind === 'guest' ? 'Guest (no password yet)' : 'Registered'}</Fact>
        {user.email && <Fact term="Email">{user.email}</Fact>}
        <Fact term="Role">{user.role === 'admin' ? 'Administrator' : 'User'}</Fact>
        <div>
          <dt>VIP</dt>
          <dd class="studio-vip-status">{user.vip ? `VIP until ${day(user.vip_until)}` : 'Not VIP'}</dd>
        </div>
        <Fact term="Session ends">{when(props.me.session.expires_at)}</Fact>
      </dl>
      <h3>Synthesis</h3>
      <Usage me={props.me} />
      <div class="actions">
        <a class="button" href="/studio/presets">
          My presets
        </a>
        <button type="button" class="secondary" onClick={() => void leave()} disabled={busy}>
          Log out
        </button>
      </div>
    </section>
  );
}

/** The account page. */
export function AccountPage() {
  const { studioToken } = useCredentials();
  const [me, setMe] = useState<StudioMe | undefined>();
  const [outcome, control] = useOutcome();
  const [reload, setReload] = useState(0);

  useEffect(() => {
    setMe(undefined);
    if (!studioToken) return;
    let stopped = false;
    getMe().then(
      (m) => {
        if (!stopped) setMe(m);
      },
      (err: unknown) => {
        if (!stopped) control.fail(err);
      },
    );
    return () => {
      stopped = true;
    };
  }, [studioToken, reload, control]);

  const refresh = () => setReload((n) => n + 1);
  return (
    <StudioFrame title="Studio account" intro="Keep voice presets, share them as links, and become VIP for higher limits.">
      <OutcomeView outcome={outcome} />
      {studioToken && !me && <p class="hint" aria-busy="true">Loading your account…</p>}
      {me && <Profile me={me} outcome={control} />}
      {me?.user.kind === 'guest' && <RegisterForm outcome={control} upgrade onDone={refresh} />}
      {!studioToken && (
        <>
          <section class="card" aria-labelledby="guest-title">
            <h2 id="guest-title">Try it without an account</h2>
            <p class="hint">A guest keeps presets and share links in this browser, with lower limits, and can register later.</p>
            <div class="actions">
              <GuestStart outcome={control} />
            </div>
          </section>
          <div class="studio-columns">
            <LoginForm outcome={control} onDone={refresh} />
            <RegisterForm outcome={control} upgrade={false} onDone={refresh} />
          </div>
        </>
      )}
    </StudioFrame>
  );
}
