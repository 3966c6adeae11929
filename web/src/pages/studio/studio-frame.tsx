/** The frame of the studio pages: the one heading, the links between Account, Presets and VIP, then the page's cards. */
import type { ComponentChildren } from 'preact';
import { SubNav } from '../../components/sub-nav.js';

/** The studio pages. */
const LINKS = [
  ['/studio', 'Account'],
  ['/studio/presets', 'Presets'],
  ['/studio/vip', 'VIP'],
] as const;

/** A page of the studio: the heading card (with the sub-navigation), then the page's own cards. */
export function StudioFrame(props: { title: string; intro: string; children: ComponentChildren }) {
  return (
    <div class="stack studio">
      <section class="card">
        <h1>{props.title}</h1>
        <SubNav label="Studio" links={LINKS} />
        <p class="hint">{props.intro}</p>
      </section>
      {props.children}
    </div>
  );
}

/** What a studio page shows without a session: a link to the account page. */
export function SignedOut(props: { what: string }) {
  return (
    <section class="card">
      <h2>Not signed in</h2>
      <p>
        {props.what} <a href="/studio">Continue as a guest, register or log in</a> first.
      </p>
    </section>
  );
}
