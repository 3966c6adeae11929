/**
 * /admin/reports: abuse reports, newest first, with a status filter. Opening one loads it with its
 * history (GET .../{report_id}); its status moves open -> reviewing -> actioned | dismissed, with a
 * note kept in the audited history.
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { getAbuseReport, listAbuseReports, moveAbuseReport, type AbuseReport, type AbuseMove, type AbuseReportDetail, type AbuseStatus, type AdminAuth } from './admin-api.js';
import { AdminFrame } from './admin-frame.js';
import { StudioAdminGate } from './identity.js';
import { OutcomeView, useAction, useOutcome, type OutcomeControl } from '../../components/outcome.js';
import { when, words } from '../../lib/format.js';
import { Fact } from '../../components/fact.js';

/** The statuses (AbuseStatus) and the moves allowed from each (AbuseReportStatusUpdate). */
const STATUSES: readonly AbuseStatus[] = ['open', 'reviewing', 'actioned', 'dismissed'];
const NEXT: Readonly<Record<AbuseStatus, readonly AbuseMove[]>> = { open: ['reviewing'], reviewing: ['actioned', 'dismissed'], actioned: [], dismissed: [] };

function ReportFacts(props: { report: AbuseReport }) {
  const r = props.report;
  return (
    <dl class="admin-facts">
      <Fact term="Filed">{when(r.created_at)}</Fact>
      <Fact term="Updated">{when(r.updated_at)}</Fact>
      <Fact term="Reporter contact">{r.reporter_contact ?? '—'}</Fact>
      <Fact term="Request named">{r.request_id ?? '—'}</Fact>
      <Fact term="Evidence">{r.evidence_url ? <a href={r.evidence_url} rel="noopener noreferrer nofollow" target="_blank">{r.evidence_url}</a> : '—'}</Fact>
      <div>
        <dt>Watermark</dt>
        <dd>
          {r.watermark_detected === null ? 'no sample' : r.watermark_detected ? `found${r.watermark?.confidence !== undefined ? ` (confidence ${r.watermark.confidence.toFixed(2)})` : ''}` : 'not found'}
        </dd>
      </div>
      {r.linked_request_id && <Fact term="Request in the watermark">{r.linked_request_id}</Fact>}
      {r.sample && (
        <div>
          <dt>Sample</dt>
          <dd>
            {r.sample.bytes ?? '?'} bytes, SHA-256 {r.sample.sha256 ?? '?'}
          </dd>
        </div>
      )}
    </dl>
  );
}

/** An opened report: everything about it, its history and the status change. */
function ReportDetail(props: { auth: AdminAuth; report: AbuseReportDetail; out: OutcomeControl; onChange: (r: AbuseReportDetail) => void; onClose: () => void }) {
  const { auth, report, out } = props;
  const moves = NEXT[report.status];
  const [to, setTo] = useState<AbuseMove | ''>(moves[0] ?? '');
  const [note, setNote] = useState('');
  const [busy, run] = useAction(out);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [report.report_id]);
  useEffect(() => setTo(NEXT[report.status][0] ?? ''), [report.status]);

  const submit = async (): Promise<void> => {
    if (!to) return;
    await run(async () => {
      const moved = await moveAbuseReport(auth, report.report_id, to, note.trim());
      props.onChange(moved);
      setNote('');
      return `Report ${moved.report_id} is now ${words(moved.status)}.`;
    });
  };

  return (
    <section class="card" aria-labelledby="report-detail">
      <h2 id="report-detail" tabIndex={-1} ref={heading}>
        Report {report.report_id}
      </h2>
      <p>
        <span class="badge">{words(report.status)}</span> <span class="badge">{report.category}</span>
      </p>
      <p class="admin-text">{report.description}</p>
      <ReportFacts report={report} />
      <h3>History</h3>
      <ol class="admin-history">
        {report.history.map((h, i) => (
          <li key={i}>
            {when(h.at)}: {h.from ? `${words(h.from)} → ` : ''}
            {words(h.to)} by {h.actor}
            {h.note ? ` — “${h.note}”` : ''}
          </li>
        ))}
      </ol>
      {moves.length > 0 ? (
        <form
          class="stack"
          onSubmit={(e) => {
            e.preventDefault();
            void submit();
          }}
        >
          <div class="row">
            <div class="field">
              <label for="report-status">New status</label>
              <select id="report-status" value={to} onChange={(e) => setTo(moves.find((m) => m === e.currentTarget.value) ?? '')}>
                {moves.map((s) => (
                  <option key={s} value={s}>
                    {words(s)}
                  </option>
                ))}
              </select>
            </div>
          </div>
          <div class="field">
            <label for="report-note">Note (optional, kept in the history)</label>
            <textarea id="report-note" rows={3} maxLength={2000} value={note} onInput={(e) => setNote(e.currentTarget.value)} />
          </div>
          <div class="actions">
            <button type="submit" disabled={busy || !to}>
              Change status
            </button>
            <button type="button" class="secondary" onClick={props.onClose}>
              Close report
            </button>
          </div>
        </form>
      ) : (
        <div class="actions">
          <p class="hint">This report is {words(report.status)}: its status is final.</p>
          <button type="button" class="secondary" onClick={props.onClose}>
            Close report
          </button>
        </div>
      )}
    </section>
  );
}

function Reports(props: { auth: AdminAuth }) {
  const { auth } = props;
  const [filter, setFilter] = useState<AbuseStatus | ''>('');
  const [rows, setRows] = useState<AbuseReport[] | undefined>();
  const [opened, setOpened] = useState<AbuseReportDetail | undefined>();
  const [outcome, out] = useOutcome();

  const load = useCallback(async () => {
    try {
      setRows(await listAbuseReports(auth, filter || undefined));
    } catch (err) {
      out.fail(err);
    }
  }, [auth, filter, out]);
  useEffect(() => {
    void load();
  }, [load]);

  const open = async (reportId: string): Promise<void> => {
    try {
      setOpened(await getAbuseReport(auth, reportId));
    } catch (err) {
      out.fail(err);
    }
  };
  const changed = (r: AbuseReportDetail): void => {
    setOpened(r);
    setRows((all) => all?.map((x) => (x.report_id === r.report_id ? r : x)));
  };

  return (
    <>
      <section class="card" aria-labelledby="report-list">
        <h2 id="report-list">Reports</h2>
        <div class="row admin-toolbar">
          <div class="field">
            <label for="report-filter">Status</label>
            <select id="report-filter" value={filter} onChange={(e) => setFilter(STATUSES.find((st) => st === e.currentTarget.value) ?? '')}>
              <option value="">Any status</option>
              {STATUSES.map((s) => (
                <option key={s} value={s}>
                  {words(s)}
                </option>
              ))}
            </select>
          </div>
          <button type="button" class="secondary" onClick={() => void load()}>
            Refresh
          </button>
        </div>
        <OutcomeView outcome={outcome} />
        {rows === undefined ? (
          <p>Loading…</p>
        ) : rows.length === 0 ? (
          <p>No reports{filter ? ` with the status “${words(filter)}”` : ''}.</p>
        ) : (
          <ul class="admin-list">
            {rows.map((r) => (
              <li key={r.report_id} class="admin-item" data-report-id={r.report_id}>
                <h3>
                  <span>{r.category}</span>
                  <span class="badge">{words(r.status)}</span>
                </h3>
                <p class="admin-text admin-clip">{r.description}</p>
                <p class="hint">
                  {r.report_id} · filed {when(r.created_at)}
                  {r.watermark_detected ? ' · watermark found' : ''}
                </p>
                <div class="actions">
                  <button type="button" class="secondary" aria-label={`Open report ${r.report_id}`} onClick={() => void open(r.report_id)}>
                    Open
                  </button>
                </div>
              </li>
            ))}
          </ul>
        )}
      </section>
      {opened && <ReportDetail auth={auth} report={opened} out={out} onChange={changed} onClose={() => setOpened(undefined)} />}
    </>
  );
}

/** /admin/reports: abuse reports. */
export function AbuseReportsPage() {
  return (
    <AdminFrame title="Abuse reports" intro="Reports of misuse filed by anyone; samples are checked for the platform's watermark.">
      <StudioAdminGate>{(auth) => <Reports auth={auth} />}</StudioAdminGate>
    </AdminFrame>
  );
}
