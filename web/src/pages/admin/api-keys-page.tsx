/**
 * /admin/keys (administrator key): the API keys with their tier, quota and rate overrides, state
 * and dates; creating one shows its secret once, in a read-only field with a Copy button, until the
 * person dismisses it or leaves the page (it is never stored); each key's tier, quota and rate
 * overrides can be changed and the key disabled or enabled.
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { createApiKey, listApiKeys, listTiers, updateApiKey, type ApiKey, type ApiKeyCreated, type Tier } from './admin-api.js';
import { AdminFrame } from './admin-frame.js';
import { AdminKeyOnly } from './identity.js';
import { OutcomeView, useAction, useOutcome, type OutcomeControl } from '../../components/outcome.js';
import { count, when } from '../../lib/format.js';
import { Fact } from '../../components/fact.js';
import type { Schema } from '../../lib/schema.js';

/** The key as the list keeps it: its secret stays only in the one-time view. */
function withoutSecret(k: ApiKeyCreated): ApiKey {
  const { api_key: _secret, ...key } = k;
  return key;
}

/** A quota field: '' is "the tier's", else a whole number of characters. */
function quotaOf(text: string): number | null | undefined {
  if (text.trim() === '') return null;
  const n = Number(text);
  return Number.isInteger(n) && n >= 0 ? n : undefined;
}

/** The bounds of a key's own rate, as the API accepts them. */
const RATE_MIN = 1;
const RATE_MAX = 100_000;

/** A rate field: '' is "the tier's", else a whole number of requests per minute within the bounds. */
function rateOf(text: string): number | null | undefined {
  if (text.trim() === '') return null;
  const n = Number(text);
  return Number.isInteger(n) && n >= RATE_MIN && n <= RATE_MAX ? n : undefined;
}

/** A key's requests per minute as listed: its own, or its tier's default. */
function rateText(k: ApiKey, tier: Tier | undefined): string {
  if (k.rate_limit_per_minute != null) return count(k.rate_limit_per_minute);
  return tier ? `tier default (${count(tier.rate_per_minute)})` : 'tier default';
}

/** A key's own limits as they are typed, and as the API takes them. */
interface LimitDraft {
  readonly daily: string;
  readonly monthly: string;
  readonly rate: string;
  readonly setDaily: (v: string) => void;
  readonly setMonthly: (v: string) => void;
  readonly setRate: (v: string) => void;
  /** The limits to send (null: the tier's); undefined while a field is invalid. */
  readonly limits: Pick<Schema<'ApiKeyUpdateRequest'>, 'daily_char_quota' | 'monthly_char_quota' | 'rate_limit_per_minute'> | undefined;
  /** Empties the three fields (every limit the tier's). */
  readonly clear: () => void;
}

/** The limit fields of a new key (empty) or of `k` (its own limits). */
function useLimitDraft(k?: ApiKey): LimitDraft {
  const [daily, setDaily] = useState(k?.daily_char_quota?.toString() ?? '');
  const [monthly, setMonthly] = useState(k?.monthly_char_quota?.toString() ?? '');
  const [rate, setRate] = useState(k?.rate_limit_per_minute?.toString() ?? '');
  const d = quotaOf(daily);
  const m = quotaOf(monthly);
  const r = rateOf(rate);
  const limits = d !== undefined && m !== undefined && r !== undefined ? { daily_char_quota: d, monthly_char_quota: m, rate_limit_per_minute: r } : undefined;
  const clear = (): void => {
    setDaily('');
    setMonthly('');
    setRate('');
  };
  return { daily, monthly, rate, setDaily, setMonthly, setRate, limits, clear };
}

function LimitFields(props: { idBase: string; draft: LimitDraft; tier: Tier | undefined }) {
  const { idBase, tier, draft } = props;
  const rateInvalid = rateOf(draft.rate) === undefined;
  return (
    <div class="row">
      <div class="field">
        <label for={`${idBase}-daily`}>Daily characters</label>
        <input id={`${idBase}-daily`} type="number" min={0} step={1} inputMode="numeric" placeholder={tier ? `tier: ${count(tier.daily_char_quota)}` : 'tier default'} value={draft.daily} onInput={(e) => draft.setDaily(e.currentTarget.value)} aria-describedby={`${idBase}-quota-hint`} />
      </div>
      <div class="field">
        <label for={`${idBase}-monthly`}>Monthly characters</label>
        <input id={`${idBase}-monthly`} type="number" min={0} step={1} inputMode="numeric" placeholder={tier ? `tier: ${count(tier.monthly_char_quota)}` : 'tier default'} value={draft.monthly} onInput={(e) => draft.setMonthly(e.currentTarget.value)} aria-describedby={`${idBase}-quota-hint`} />
      </div>
      <div class="field">
        <label for={`${idBase}-rate`}>Requests per minute</label>
        <input
          id={`${idBase}-rate`}
          type="number"
          min={RATE_MIN}
          max={RATE_MAX}
          step={1}
          inputMode="numeric"
          placeholder={tier ? `tier: ${count(tier.rate_per_minute)}` : 'tier default'}
          value={draft.rate}
          onInput={(e) => draft.setRate(e.currentTarget.value)}
          aria-invalid={rateInvalid}
          aria-describedby={`${idBase}-quota-hint`}
        />
      </div>
      <p id={`${idBase}-quota-hint`} class={rateInvalid ? 'error admin-wide' : 'hint admin-wide'}>
        Empty: the tier's quota or rate. Requests per minute: a whole number from {RATE_MIN} to {count(RATE_MAX)}.
      </p>
    </div>
  );
}

function TierSelect(props: { id: string; tiers: readonly Tier[]; value: string; onChange: (v: string) => void }) {
  return (
    <div class="field">
      <label for={props.id}>Tier</label>
      <select id={props.id} value={props.value} onChange={(e) => props.onChange(e.currentTarget.value)}>
        {props.tiers.map((t) => (
          <option key={t.name} value={t.name}>
            {t.name} — {t.rate_per_minute}/min, {count(t.daily_char_quota)} chars/day
          </option>
        ))}
      </select>
    </div>
  );
}

/** The secret of a key just created: shown this once. */
function SecretOnce(props: { created: ApiKeyCreated; onDismiss: () => void }) {
  const field = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState('');
  useEffect(() => field.current?.focus(), []);
  const copy = async (): Promise<void> => {
    field.current?.select();
    try {
      await navigator.clipboard.writeText(props.created.api_key);
      setCopied('Copied to the clipboard.');
    } catch {
      setCopied('The browser did not allow copying: the key is selected, copy it by hand.');
    }
  };
  return (
    <section class="card admin-secret" aria-labelledby="secret-title">
      <h2 id="secret-title">Key “{props.created.name}” created</h2>
      <p class="warn">Copy the key now: it is not stored and will not be shown again.</p>
      <label for="new-key-secret">API key</label>
      <input id="new-key-secret" ref={field} type="text" readOnly value={props.created.api_key} class="admin-mono" onFocus={(e) => e.currentTarget.select()} />
      <div class="actions">
        <button type="button" onClick={() => void copy()}>
          Copy
        </button>
        <button type="button" class="secondary" onClick={props.onDismiss}>
          I have copied it
        </button>
        <span role="status" class="hint">
          {copied}
        </span>
      </div>
    </section>
  );
}

function CreateKey(props: { tiers: readonly Tier[]; defaultTier: string; out: OutcomeControl; onCreated: (k: ApiKeyCreated) => void }) {
  const [name, setName] = useState('');
  const [tier, setTier] = useState(props.defaultTier);
  const draft = useLimitDraft();
  const [busy, run] = useAction(props.out);
  useEffect(() => setTier(props.defaultTier), [props.defaultTier]);
  const { limits } = draft;
  const valid = name.trim() !== '' && limits !== undefined;
  return (
    <form
      class="card"
      aria-labelledby="create-key"
      onSubmit={(e) => {
        e.preventDefault();
        if (!valid) return;
        void run(async () => {
          const created = await createApiKey({ name: name.trim(), tier, ...limits });
          setName('');
          draft.clear();
          props.onCreated(created);
        });
      }}
    >
      <h2 id="create-key">Create a key</h2>
      <div class="row">
        <div class="field">
          <label for="key-name">Name</label>
          <input id="key-name" type="text" maxLength={200} required value={name} onInput={(e) => setName(e.currentTarget.value)} placeholder="e.g. production-backend" />
        </div>
        {props.tiers.length > 0 && <TierSelect id="key-tier" tiers={props.tiers} value={tier} onChange={setTier} />}
      </div>
      <LimitFields idBase="key" draft={draft} tier={props.tiers.find((t) => t.name === tier)} />
      <div class="actions">
        <button type="submit" disabled={busy || !valid}>
          Create key
        </button>
      </div>
    </form>
  );
}

function KeyEditor(props: { apiKey: ApiKey; tiers: readonly Tier[]; out: OutcomeControl; onChange: (k: ApiKey) => void; onClose: () => void }) {
  const k = props.apiKey;
  const [tier, setTier] = useState(k.tier);
  const draft = useLimitDraft(k);
  const [busy, run] = useAction(props.out);
  const { limits } = draft;
  const base = `edit-${k.key_id}`;
  return (
    <form
      class="admin-controls"
      id={`${base}-form`}
      onSubmit={(e) => {
        e.preventDefault();
        if (!limits) return;
        void run(async () => {
          const updated = await updateApiKey(k.key_id, { tier, ...limits });
          props.onChange(updated);
          props.onClose();
          return `Key “${updated.name}” saved: tier ${updated.tier}.`;
        });
      }}
    >
      <div class="row">{props.tiers.length > 0 && <TierSelect id={`${base}-tier`} tiers={props.tiers} value={tier} onChange={setTier} />}</div>
      <LimitFields idBase={base} draft={draft} tier={props.tiers.find((t) => t.name === tier)} />
      <div class="actions">
        <button type="submit" disabled={busy || !limits}>
          Save
        </button>
        <button type="button" class="secondary" onClick={props.onClose}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function KeyItem(props: { apiKey: ApiKey; tiers: readonly Tier[]; out: OutcomeControl; onChange: (k: ApiKey) => void }) {
  const k = props.apiKey;
  const [editing, setEditing] = useState(false);
  const [busy, run] = useAction(props.out);
  const toggle = () =>
    run(async () => {
      const updated = await updateApiKey(k.key_id, { disabled: !k.disabled });
      props.onChange(updated);
      return `Key “${updated.name}” is ${updated.disabled ? 'disabled: the API refuses it from now on' : 'enabled again'}.`;
    });
  return (
    <li class="admin-item" data-key-id={k.key_id}>
      <h3>
        <span>{k.name}</span>
        <span class="badge">{k.tier}</span>
        {k.disabled && <span class="badge">disabled</span>}
      </h3>
      <dl class="admin-facts">
        <div>
          <dt>Prefix</dt>
          <dd class="admin-mono">{k.prefix}</dd>
        </div>
        <Fact term="Daily characters">{k.daily_char_quota == null ? 'tier default' : count(k.daily_char_quota)}</Fact>
        <Fact term="Monthly characters">{k.monthly_char_quota == null ? 'tier default' : count(k.monthly_char_quota)}</Fact>
        <Fact term="Requests per minute">{rateText(k, props.tiers.find((t) => t.name === k.tier))}</Fact>
        <Fact term="Created">{when(k.created_at)}</Fact>
        <Fact term="Changed">{when(k.updated_at)}</Fact>
      </dl>
      <div class="actions">
        <button type="button" class="secondary" aria-expanded={editing} aria-controls={`edit-${k.key_id}-form`} aria-label={`Edit key ${k.name}`} onClick={() => setEditing(!editing)}>
          Edit
        </button>
        <button type="button" class="secondary" disabled={busy} aria-label={`${k.disabled ? 'Enable' : 'Disable'} key ${k.name}`} onClick={() => void toggle()}>
          {k.disabled ? 'Enable' : 'Disable'}
        </button>
      </div>
      {editing && <KeyEditor apiKey={k} tiers={props.tiers} out={props.out} onChange={props.onChange} onClose={() => setEditing(false)} />}
    </li>
  );
}

function ApiKeys() {
  const [keys, setKeys] = useState<ApiKey[] | undefined>();
  const [tiers, setTiers] = useState<Schema<'TierList'>>({ default_tier: 'free', tiers: [] });
  const [created, setCreated] = useState<ApiKeyCreated | undefined>();
  const [outcome, out] = useOutcome();

  const load = useCallback(async () => {
    try {
      const [k, t] = await Promise.all([listApiKeys(), listTiers()]);
      setKeys(k);
      setTiers(t);
    } catch (err) {
      out.fail(err);
    }
  }, [out]);
  useEffect(() => {
    void load();
  }, [load]);

  const replace = (k: ApiKey): void => setKeys((all) => all?.map((x) => (x.key_id === k.key_id ? k : x)));
  return (
    <>
      {created && (
        <SecretOnce
          created={created}
          onDismiss={() => {
            setCreated(undefined);
            out.ok(`The secret of “${created.name}” is hidden now.`);
          }}
        />
      )}
      <CreateKey
        tiers={tiers.tiers}
        defaultTier={tiers.default_tier}
        out={out}
        onCreated={(k) => {
          setCreated(k);
          setKeys((all) => [withoutSecret(k), ...(all ?? [])]);
          out.ok(`Key “${k.name}” created.`);
        }}
      />
      <section class="card" aria-labelledby="key-list">
        <h2 id="key-list">Keys</h2>
        <div class="actions">
          <button type="button" class="secondary" onClick={() => void load()}>
            Refresh
          </button>
        </div>
        <p class="hint">Secrets are stored only as hashes; a lost key cannot be shown again, create a new one.</p>
        <OutcomeView outcome={outcome} />
        {keys === undefined ? (
          <p>Loading…</p>
        ) : keys.length === 0 ? (
          <p>No keys yet.</p>
        ) : (
          <ul class="admin-list">
            {keys.map((k) => (
              <KeyItem key={k.key_id} apiKey={k} tiers={tiers.tiers} out={out} onChange={replace} />
            ))}
          </ul>
        )}
      </section>
    </>
  );
}

/** /admin/keys: API keys (administrator key). */
export function ApiKeysPage() {
  return (
    <AdminFrame title="API keys" intro="Keys for programs calling the API (X-API-Key or a bearer token), each with a tier of limits.">
      <AdminKeyOnly>
        <ApiKeys />
      </AdminKeyOnly>
    </AdminFrame>
  );
}
