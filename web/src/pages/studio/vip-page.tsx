/**
 * /studio/vip: the VIP plans and their price, the caller's VIP status and its end, a slip upload
 * (checked by the slip-verification provider: approved, rejected or waiting for review), a manual
 * request for an administrator, and the caller's requests with their status.
 */
import { useCallback, useEffect, useState } from 'preact/hooks';
import { useCredentials } from '../../lib/credentials.js';
import { reasonText, statusText } from './format.js';
import { day, when } from '../../lib/format.js';
import { OutcomeView, useOutcome } from '../../components/outcome.js';
import { SignedOut, StudioFrame } from './studio-frame.js';
import { getVipInfo, type VipInfo } from './studio-api.js';
import { ManualRequestForm, SlipForm } from './vip-forms.js';

function Requests(props: { info: VipInfo }) {
  const rows = props.info.requests;
  return (
    <section class="card" aria-labelledby="requests-title">
      <h2 id="requests-title">My VIP requests</h2>
      {rows.length === 0 ? (
        <p class="hint">No requests yet.</p>
      ) : (
        <div class="table-wrap">
          <table class="studio-requests">
            <thead>
              <tr>
                <th scope="col">Filed</th>
                <th scope="col">How</th>
                <th scope="col">Plan</th>
                <th scope="col">Status</th>
                <th scope="col">Why</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.request_id} data-request-id={r.request_id}>
                  <td>{when(r.created_at)}</td>
                  <td>{r.source === 'slip' ? 'Slip' : 'Message'}</td>
                  <td>{props.info.plans.find((p) => p.plan_id === r.plan_id)?.name ?? r.plan_id}</td>
                  <td>
                    <span class="badge">{statusText(r.status)}</span>
                  </td>
                  <td>{reasonText(r.reason)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function Vip() {
  const [info, setInfo] = useState<VipInfo | undefined>();
  const [outcome, control] = useOutcome();
  const load = useCallback(async () => {
    try {
      setInfo(await getVipInfo());
    } catch (err) {
      control.fail(err);
    }
  }, [control]);
  useEffect(() => {
    void load();
  }, [load]);
  const refresh = () => void load();
  if (!info) {
    return (
      <>
        <OutcomeView outcome={outcome} />
        <p class="hint">Loading…</p>
      </>
    );
  }
  const guest = info.status.kind === 'guest';
  return (
    <>
      <section class="card" aria-labelledby="status-title">
        <h2 id="status-title">Your status</h2>
        <p class={info.status.vip ? 'ok vip-status' : 'vip-status'}>{info.status.vip ? `VIP until ${day(info.status.vip_until)}` : 'You are not VIP.'}</p>
        <h3>Plans</h3>
        <ul class="studio-plans">
          {info.plans.map((p) => (
            <li key={p.plan_id}>
              <strong>{p.name}</strong>: {p.price.toLocaleString()} {p.currency} for {p.days} days
            </li>
          ))}
        </ul>
      </section>
      <OutcomeView outcome={outcome} />
      {guest ? (
        <section class="card">
          <h2>Register first</h2>
          <p>
            VIP is for registered accounts. <a href="/studio">Register this guest account</a>; your presets stay.
          </p>
        </section>
      ) : (
        <div class="studio-columns">
          <SlipForm plans={info.plans} automatic={info.payment.automatic} outcome={control} onDone={refresh} />
          <ManualRequestForm plans={info.plans} outcome={control} onDone={refresh} />
        </div>
      )}
      <Requests info={info} />
    </>
  );
}

/** The VIP page. */
export function VipPage() {
  const { studioToken } = useCredentials();
  return (
    <StudioFrame title="VIP" intro="VIP raises the synthesis limits and the number of presets and share links.">
      {studioToken ? <Vip key={studioToken} /> : <SignedOut what="VIP belongs to a studio account." />}
    </StudioFrame>
  );
}
