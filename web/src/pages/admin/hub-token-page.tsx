/**
 * /admin/hub (administrator key): the model-hub token the model manager uses for gated models.
 * Its status (set or not, masked, when, the last check), setting a new one (checked with the hub
 * first unless the person says not to), checking the stored one, and clearing it after a
 * confirmation. The token itself is never shown: the API returns only its masked form.
 */
import { useCallback, useEffect, useState } from 'preact/hooks';
import { deleteHubToken, hubTokenStatus, setHubToken, validateHubToken, type HubTokenStatus, type HubValidation } from './admin-api.js';
import { AdminFrame } from './admin-frame.js';
import { AdminKeyOnly } from './identity.js';
import { OutcomeView, useAction, useOutcome } from '../../components/outcome.js';
import { when } from '../../lib/format.js';
import { Fact } from '../../components/fact.js';
import { Confirm } from '../../components/confirm.js';

/** What the hub said, in words. */
function verdict(v: { valid?: boolean | null; account?: string | null; error_code?: string | null }): string {
  if (v.valid === true) return `valid${v.account ? ` (account ${v.account})` : ''}`;
  if (v.valid === false) return 'refused by the hub';
  if (v.error_code === 'HUB_TIMEOUT') return 'no answer from the hub in time';
  if (v.error_code === 'HUB_UNREACHABLE') return 'the hub could not be reached';
  return 'unknown';
}

function StatusFacts(props: { status: HubTokenStatus }) {
  const s = props.status;
  return (
    <dl class="admin-facts">
      <Fact term="Token">{s.configured ? <span class="admin-mono">{s.masked}</span> : 'not set'}</Fact>
      <Fact term="Set">{when(s.set_at)}</Fact>
      <Fact term="Hub">{s.hub_url}</Fact>
      {s.configured && <Fact term="Readable">{s.decryptable === false ? 'no: encrypted under another key, set it again' : 'yes'}</Fact>}
      <Fact term="Last check">{s.last_validation?.at ? `${when(s.last_validation.at)}: ${verdict(s.last_validation)}` : 'never'}</Fact>
    </dl>
  );
}

function HubToken() {
  const [status, setStatus] = useState<HubTokenStatus | undefined>();
  const [token, setToken] = useState('');
  const [check, setCheck] = useState(true);
  const [confirming, setConfirming] = useState(false);
  const [outcome, out] = useOutcome();
  const [busy, run] = useAction(out);

  const load = useCallback(async () => {
    try {
      setStatus(await hubTokenStatus());
    } catch (err) {
      out.fail(err);
    }
  }, [out]);
  useEffect(() => {
    void load();
  }, [load]);

  const said = (v: HubValidation | null): string => (v ? ` The hub says: ${verdict(v)}.` : '');
  const tokenValid = token.length >= 8 && token.length <= 256 && /^[\x21-\x7e]+$/.test(token);

  return (
    <>
      <section class="card" aria-labelledby="hub-status">
        <h2 id="hub-status">Status</h2>
        {status ? <StatusFacts status={status} /> : <p>Loading…</p>}
        <OutcomeView outcome={outcome} />
        <div class="actions">
          <button
            type="button"
            class="secondary"
            disabled={busy || !status?.configured}
            onClick={() =>
              void run(async () => {
                const v = await validateHubToken();
                await load();
                return `Checked the stored token ${v.masked}: ${verdict(v)}.`;
              })
            }
          >
            Validate stored token
          </button>
          {!confirming && (
            <button type="button" class="secondary" disabled={busy || !status?.configured} onClick={() => setConfirming(true)}>
              Delete token
            </button>
          )}
        </div>
        {confirming && (
          <Confirm
            id="hub-confirm"
            question="Delete the stored hub token? Gated models cannot be downloaded until a new one is set."
            yes="Delete the token"
            busy={busy}
            onYes={() =>
              void run(async () => {
                const deleted = await deleteHubToken();
                setConfirming(false);
                await load();
                return deleted ? 'The hub token is deleted.' : 'No hub token was set.';
              })
            }
            onNo={() => setConfirming(false)}
          />
        )}
      </section>
      <form
        class="card"
        aria-labelledby="hub-set"
        onSubmit={(e) => {
          e.preventDefault();
          if (!tokenValid) return;
          void run(async () => {
            const s = await setHubToken(token, check);
            setToken('');
            setStatus(s);
            return `The hub token ${s.masked ?? ''} is stored.${said(s.validation)}`;
          });
        }}
      >
        <h2 id="hub-set">Set a token</h2>
        <label for="hub-token">Hub token</label>
        <input id="hub-token" type="password" autoComplete="off" spellcheck={false} value={token} onInput={(e) => setToken(e.currentTarget.value)} aria-describedby="hub-token-hint" />
        <p id="hub-token-hint" class="hint">
          8 to 256 printable characters (e.g. hf_…). It is stored encrypted and never shown again, only its last four characters.
        </p>
        <label class="admin-check">
          <input type="checkbox" checked={check} onChange={(e) => setCheck(e.currentTarget.checked)} /> Check it with the hub before storing
        </label>
        <div class="actions">
          <button type="submit" disabled={busy || !tokenValid}>
            Save token
          </button>
        </div>
      </form>
    </>
  );
}

/** /admin/hub: the model-hub token (administrator key). */
export function HubTokenPage() {
  return (
    <AdminFrame title="Hub token" intro="The model-hub token used to download gated models. Only its masked form is ever shown.">
      <AdminKeyOnly>
        <HubToken />
      </AdminKeyOnly>
    </AdminFrame>
  );
}
