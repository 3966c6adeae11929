/** The two ways to ask for VIP: a bank-transfer slip checked at once, and a message to an administrator. */
import { useState } from 'preact/hooks';
import { useAction, type OutcomeControl } from '../../components/outcome.js';
import { reasonText } from './format.js';
import { day } from '../../lib/format.js';
import { requestVip, submitSlip, type VipPlan, type VipRequest } from './studio-api.js';

function PlanSelect(props: { id: string; plans: readonly VipPlan[]; value: string; onChange: (v: string) => void }) {
  return (
    <select id={props.id} value={props.value} onChange={(e) => props.onChange(e.currentTarget.value)}>
      {props.plans.map((p) => (
        <option key={p.plan_id} value={p.plan_id}>
          {p.name}: {p.price.toLocaleString()} {p.currency}, {p.days} days
        </option>
      ))}
    </select>
  );
}

/** What a slip came to, in words. */
export function slipOutcome(r: VipRequest): string {
  if (r.status === 'approved') return `Payment verified: you are VIP until ${day(r.vip_until)}.`;
  if (r.status === 'rejected') return `The slip was rejected: ${reasonText(r.reason)}.`;
  return `The slip waits for an administrator: ${reasonText(r.reason)}.`;
}

/** The slip upload: a plan and the slip image (JPEG, PNG or WebP, at most 4 MiB). */
export function SlipForm(props: { plans: readonly VipPlan[]; automatic: boolean; outcome: OutcomeControl; onDone: () => void }) {
  const [plan, setPlan] = useState(props.plans[0]?.plan_id ?? '');
  const [file, setFile] = useState<File | undefined>();
  const [busy, run] = useAction(props.outcome);
  const [result, setResult] = useState('');
  const submit = (e: Event) => {
    e.preventDefault();
    if (!file) return;
    setResult('');
    return run(async () => {
      setResult(slipOutcome(await submitSlip(plan, file)));
      props.onDone();
    });
  };
  return (
    <form class="card" onSubmit={(e) => void submit(e)} aria-labelledby="slip-title">
      <h2 id="slip-title">Pay by bank transfer</h2>
      <p class="hint">
        Transfer the plan price, then upload the slip (JPEG, PNG or WebP, up to 4 MiB).{' '}
        {props.automatic ? 'It is checked at once.' : 'An administrator checks it.'}
      </p>
      <label for="slip-plan">Plan</label>
      <PlanSelect id="slip-plan" plans={props.plans} value={plan} onChange={setPlan} />
      <label for="slip-file">Transfer slip</label>
      <input id="slip-file" type="file" accept="image/jpeg,image/png,image/webp" onChange={(e) => setFile(e.currentTarget.files?.[0])} />
      <div class="actions">
        <button type="submit" disabled={busy || !file || !plan}>
          {busy ? 'Checking the slip…' : 'Upload slip'}
        </button>
      </div>
      <p role="status" class={result.startsWith('Payment verified') ? 'ok slip-result' : 'slip-result'}>
        {result}
      </p>
    </form>
  );
}

/** The manual request: a plan and a message for the administrator. */
export function ManualRequestForm(props: { plans: readonly VipPlan[]; outcome: OutcomeControl; onDone: () => void }) {
  const [plan, setPlan] = useState(props.plans[0]?.plan_id ?? '');
  const [message, setMessage] = useState('');
  const [busy, run] = useAction(props.outcome);
  const submit = (e: Event) => {
    e.preventDefault();
    return run(async () => {
      await requestVip(plan, message.trim());
      setMessage('');
      props.onDone();
      return 'Your request was sent; it is pending review by an administrator.';
    });
  };
  return (
    <form class="card" onSubmit={(e) => void submit(e)} aria-labelledby="manual-title">
      <h2 id="manual-title">Ask an administrator</h2>
      <p class="hint">Paid another way (an invoice, for instance)? Tell an administrator; one request can wait at a time.</p>
      <label for="manual-plan">Plan</label>
      <PlanSelect id="manual-plan" plans={props.plans} value={plan} onChange={setPlan} />
      <label for="manual-message">Message</label>
      <textarea id="manual-message" rows={3} maxLength={2000} value={message} onInput={(e) => setMessage(e.currentTarget.value)} />
      <div class="actions">
        <button type="submit" disabled={busy || !message.trim() || !plan}>
          Send request
        </button>
      </div>
    </form>
  );
}
