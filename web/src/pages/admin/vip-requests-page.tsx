/**
 * /admin: the VIP request queue, waiting requests first, with a status filter. Each request shows
 * the user, the plan, where it came from (a slip or a manual request), the expected amount and the
 * slip provider's findings; a waiting one can be approved or rejected, and the row changes in place.
 */
import { useCallback, useEffect, useState } from 'preact/hooks';
import { decideVipRequest, listUsers, listVipRequests, type AdminAuth, type StudioUser, type VipRequest, type VipStatus } from './admin-api.js';
import { AdminFrame } from './admin-frame.js';
import { StudioAdminGate } from './identity.js';
import { OutcomeView, useOutcome } from '../../components/outcome.js';
import { who } from './format.js';
import { when, words } from '../../lib/format.js';
import { Fact } from '../../components/fact.js';
import { SelectField } from '../../components/select-field.js';

/** The status filter: '' is every request, waiting ones first. */
type Filter = '' | VipStatus;

const FILTERS: readonly (readonly [Filter, string])[] = [
  ['', 'All, waiting first'],
  ['pending_review', 'Waiting for review'],
  ['approved', 'Approved'],
  ['rejected', 'Rejected'],
];

/** The slip findings worth showing, in this order. */
const SLIP_FIELDS = ['verdict', 'amount', 'provider', 'provider_code', 'provider_message', 'trans_ref'] as const;

function waitingFirst(rows: readonly VipRequest[]): VipRequest[] {
  return [...rows].sort((a, b) => Number(b.status === 'pending_review') - Number(a.status === 'pending_review'));
}

function SlipFindings(props: { slip: NonNullable<VipRequest['slip']> }) {
  const facts = SLIP_FIELDS.filter((k) => props.slip[k] !== undefined && props.slip[k] !== null);
  if (facts.length === 0) return null;
  return (
    <Fact term="Slip findings">{facts.map((k) => `${words(k)}: ${String(props.slip[k])}`).join(' · ')}</Fact>
  );
}

function RequestItem(props: { row: VipRequest; user: StudioUser | undefined; busy: boolean; onDecide: (verb: 'approve' | 'reject') => void }) {
  const { row } = props;
  const name = who(props.user, row.user_id);
  return (
    <li class="admin-item" data-request-id={row.request_id}>
      <h3>
        <span>{name}</span>
        <span class="badge">{words(row.status)}</span>
      </h3>
      <dl class="admin-facts">
        <Fact term="Plan">{row.plan_id}</Fact>
        <Fact term="Source">{row.source === 'slip' ? 'Bank-transfer slip' : 'Manual request'}</Fact>
        <Fact term="Expected amount">{row.expected_amount ?? '—'}</Fact>
        <Fact term="Filed">{when(row.created_at)}</Fact>
        <Fact term="Reason">{words(row.reason)}</Fact>
        {row.message && <Fact term="Message">{row.message}</Fact>}
        {row.slip && <SlipFindings slip={row.slip} />}
        {row.status !== 'pending_review' && (
          <div>
            <dt>Decided</dt>
            <dd>
              {when(row.decided_at)}
              {row.decided_by ? ` by ${row.decided_by}` : ''}
            </dd>
          </div>
        )}
        {row.vip_until && <Fact term="VIP granted until">{when(row.vip_until)}</Fact>}
      </dl>
      {row.status === 'pending_review' && (
        <div class="actions">
          <button type="button" disabled={props.busy} aria-label={`Approve the request of ${name}`} onClick={() => props.onDecide('approve')}>
            Approve
          </button>
          <button type="button" class="secondary" disabled={props.busy} aria-label={`Reject the request of ${name}`} onClick={() => props.onDecide('reject')}>
            Reject
          </button>
        </div>
      )}
    </li>
  );
}

function VipQueue(props: { auth: AdminAuth }) {
  const { auth } = props;
  const [filter, setFilter] = useState<Filter>('');
  const [rows, setRows] = useState<VipRequest[] | undefined>();
  const [users, setUsers] = useState<ReadonlyMap<string, StudioUser>>(new Map());
  const [busy, setBusy] = useState('');
  const [outcome, out] = useOutcome();

  const load = useCallback(async () => {
    try {
      const [requests, people] = await Promise.all([listVipRequests(auth, filter || undefined), listUsers(auth)]);
      setRows(waitingFirst(requests));
      setUsers(new Map(people.map((u) => [u.user_id, u])));
    } catch (err) {
      out.fail(err);
    }
  }, [auth, filter, out]);
  useEffect(() => {
    void load();
  }, [load]);

  const decide = async (row: VipRequest, verb: 'approve' | 'reject'): Promise<void> => {
    setBusy(row.request_id);
    const name = who(users.get(row.user_id ?? ''), row.user_id);
    try {
      const decided = await decideVipRequest(auth, row.request_id, verb);
      setRows((all) => all?.map((r) => (r.request_id === decided.request_id ? { ...r, ...decided } : r)));
      out.ok(verb === 'approve' ? `Approved the ${decided.plan_id} request of ${name}: VIP until ${when(decided.vip_until)}.` : `Rejected the ${decided.plan_id} request of ${name}.`);
    } catch (err) {
      out.fail(err);
    } finally {
      setBusy('');
    }
  };

  return (
    <section class="card" aria-labelledby="vip-queue">
      <h2 id="vip-queue">Queue</h2>
      <div class="row admin-toolbar">
        <SelectField id="vip-filter" label="Status" value={filter} options={FILTERS} onChange={(v) => setFilter(v as Filter)} />
        <button type="button" class="secondary" onClick={() => void load()}>
          Refresh
        </button>
      </div>
      <p class="hint">Approving grants VIP for the plan's days from the later of now and the current end. Decisions are final.</p>
      <OutcomeView outcome={outcome} />
      {rows === undefined ? (
        <p>Loading…</p>
      ) : rows.length === 0 ? (
        <p>No requests{filter ? ` with the status “${words(filter)}”` : ''}.</p>
      ) : (
        <ul class="admin-list">
          {rows.map((row) => (
            <RequestItem key={row.request_id} row={row} user={users.get(row.user_id ?? '')} busy={busy === row.request_id} onDecide={(verb) => void decide(row, verb)} />
          ))}
        </ul>
      )}
    </section>
  );
}

/** /admin: the VIP request queue. */
export function VipRequestsPage() {
  return (
    <AdminFrame title="VIP requests" intro="Requests for VIP membership: bank-transfer slips the provider could not confirm and manual requests.">
      <StudioAdminGate>{(auth) => <VipQueue auth={auth} />}</StudioAdminGate>
    </AdminFrame>
  );
}
