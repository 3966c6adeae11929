/**
 * /share/:token: a preset someone shared (public): its name, voice, speed, format, sample text and
 * pronunciation lexicon (a fork copies it), and "Fork to my presets". Without a studio session the
 * page offers "Continue as a guest" first. An unknown, revoked or expired link says so.
 */
import { useEffect, useState } from 'preact/hooks';
import { useRoute } from 'preact-iso';
import { ApiError } from '../../lib/api.js';
import { useCredentials } from '../../lib/credentials.js';
import { messageFor } from '../../lib/messages.js';
import { day } from '../../lib/format.js';
import { OutcomeView, useAction, useOutcome } from '../../components/outcome.js';
import { forkShared, getShared, startGuest, type Preset, type SharedPreset } from './studio-api.js';
import { useVoices } from './voices.js';
import { Fact } from '../../components/fact.js';

/** Why a link does not open, in words. */
function unavailable(err: unknown): string {
  if (err instanceof ApiError) {
    if (err.code === 'STUDIO_SHARE_NOT_FOUND' || err.status === 404 || err.status === 422) return 'This share link does not exist. Check that it was copied whole.';
    if (err.code === 'STUDIO_SHARE_REVOKED') return 'This share link was revoked by its owner.';
    if (err.code === 'STUDIO_SHARE_EXPIRED') return 'This share link has expired.';
  }
  return messageFor(err);
}

function Shared(props: { token: string; shared: SharedPreset }) {
  const { studioToken } = useCredentials();
  const { voices } = useVoices();
  const [outcome, control] = useOutcome();
  const [busy, run] = useAction(control);
  const [forked, setForked] = useState<Preset | undefined>();
  const p = props.shared.preset;
  const voice = p.voice ? (voices.find((v) => v.id === p.voice)?.name ?? p.voice) : 'Default voice';

  const fork = (asGuest: boolean) =>
    run(async () => {
      if (asGuest) await startGuest();
      const copy = await forkShared(props.token);
      setForked(copy);
      return `“${copy.name}” is now in your presets.`;
    });

  return (
    <>
      <section class="card" aria-labelledby="shared-name">
        <h2 id="shared-name">{p.name}</h2>
        <dl class="studio-facts">
          <Fact term="Voice">{voice}</Fact>
          <Fact term="Speed">{p.speed === null ? 'Normal' : `${p.speed}×`}</Fact>
          <Fact term="Format">{p.format ?? 'Default'}</Fact>
          <Fact term="Shared">{day(props.shared.shared_at)}</Fact>
          <Fact term="Link expires">{props.shared.expires_at ? day(props.shared.expires_at) : 'Never'}</Fact>
          <Fact term="Copies made">{props.shared.fork_count}</Fact>
          {p.sample_text && (
            <div class="studio-wide">
              <dt>Sample text</dt>
              <dd>{p.sample_text}</dd>
            </div>
          )}
          <div class="studio-wide">
            <dt>Pronunciations</dt>
            <dd>
              {props.shared.lexicon.length === 0 ? (
                'None'
              ) : (
                <ul class="share-lexicon">
                  {props.shared.lexicon.map((e) => (
                    <li key={e.word}>
                      {e.word}: {e.ipa !== null ? `/${e.ipa}/` : e.respelling}
                      {e.case_sensitive ? ' (this capitalization only)' : ''}
                    </li>
                  ))}
                </ul>
              )}
            </dd>
          </div>
        </dl>
      </section>
      <section class="card" aria-labelledby="fork-title">
        <h2 id="fork-title">Fork to my presets</h2>
        <OutcomeView outcome={outcome} />
        {forked ? (
          <p>
            <a href="/studio/presets">Open my presets</a> to use or change it.
          </p>
        ) : studioToken ? (
          <div class="actions">
            <button type="button" disabled={busy} onClick={() => void fork(false)}>
              Fork to my presets
            </button>
          </div>
        ) : (
          <>
            <p class="hint">
              Copying it needs a studio account. Continue as a guest (you can register later), or <a href="/studio">log in</a> first and come back.
            </p>
            <div class="actions">
              <button type="button" disabled={busy} onClick={() => void fork(true)}>
                Continue as a guest and fork
              </button>
            </div>
          </>
        )}
      </section>
    </>
  );
}

/** The shared preset page. */
export function SharePage() {
  const { params } = useRoute();
  const token = params['token'] ?? '';
  const [shared, setShared] = useState<SharedPreset | undefined>();
  const [problem, setProblem] = useState('');
  useEffect(() => {
    let stopped = false;
    setShared(undefined);
    setProblem('');
    getShared(token).then(
      (s) => {
        if (!stopped) setShared(s);
      },
      (err: unknown) => {
        if (!stopped) setProblem(unavailable(err));
      },
    );
    return () => {
      stopped = true;
    };
  }, [token]);
  return (
    <div class="stack studio">
      <section class="card">
        <h1>Shared preset</h1>
        <p class="hint">A voice setup someone shared with you.</p>
        <p role="alert" class="error">
          {problem}
        </p>
        {!shared && !problem && <p class="hint">Loading the preset…</p>}
      </section>
      {shared && <Shared token={token} shared={shared} />}
    </div>
  );
}
