/** The frame of every administration page: its one heading, what it is for and the links between the five pages. */
import type { ComponentChildren } from 'preact';
import { SubNav } from '../../components/sub-nav.js';

/** The administration pages; the last three need the administrator key (cleanup lives with the operations pages). */
const LINKS = [
  ['/admin', 'VIP requests'],
  ['/admin/users', 'Users'],
  ['/admin/reports', 'Abuse reports'],
  ['/admin/keys', 'API keys (admin key)'],
  ['/admin/hub', 'Hub token (admin key)'],
  ['/ops/system', 'Cleanup (admin key)'],
] as const;

/** A page of the administration area: the heading card, then the page's own cards. */
export function AdminFrame(props: { title: string; intro: string; children: ComponentChildren }) {
  return (
    <div class="stack admin">
      <section class="card">
        <h1>{props.title}</h1>
        <SubNav label="Administration" links={LINKS} />
        <p class="hint">{props.intro}</p>
      </section>
      {props.children}
    </div>
  );
}
