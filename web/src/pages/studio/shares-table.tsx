/** The caller's share links (active, revoked, expired), newest first, with "Revoke" on active ones. */
import type { Preset, Share } from './studio-api.js';
import { when } from '../../lib/format.js';

const STATUS: Readonly<Record<string, string>> = { active: 'Active', revoked: 'Revoked', expired: 'Expired' };

/** The table of shares; `presets` names them. */
export function SharesTable(props: { shares: readonly Share[]; presets: readonly Preset[]; busy: boolean; onRevoke: (share: Share) => void }) {
  const nameOf = (id: string) => props.presets.find((p) => p.preset_id === id)?.name ?? 'deleted preset';
  return (
    <section class="card" aria-labelledby="shares-title">
      <h2 id="shares-title">My share links</h2>
      {props.shares.length === 0 ? (
        <p class="hint">No share links yet. “Share” on a preset makes one.</p>
      ) : (
        <div class="table-wrap">
          <table class="studio-shares">
            <caption class="hint">The link itself is shown only when it is made.</caption>
            <thead>
              <tr>
                <th scope="col">Preset</th>
                <th scope="col">Status</th>
                <th scope="col">Made</th>
                <th scope="col">Expires</th>
                <th scope="col">Copies</th>
                <th scope="col">Action</th>
              </tr>
            </thead>
            <tbody>
              {props.shares.map((s) => (
                <tr key={s.share_id} data-share-id={s.share_id}>
                  <td>{nameOf(s.preset_id)}</td>
                  <td>
                    <span class="badge">{STATUS[s.status] ?? s.status}</span>
                  </td>
                  <td>{when(s.created_at)}</td>
                  <td>{s.expires_at ? when(s.expires_at) : 'Never'}</td>
                  <td>{s.fork_count}</td>
                  <td>
                    {s.status === 'active' && (
                      <button type="button" class="secondary" disabled={props.busy} onClick={() => props.onRevoke(s)} aria-label={`Revoke the link of ${nameOf(s.preset_id)} made ${when(s.created_at)}`}>
                        Revoke
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
