/**
 * The frame of every operations page: its one heading, the links between the five pages, and the
 * administrator key (asked for until given; a button forgets it). The page's cards render only
 * once the key is there.
 */
import type { ComponentChildren } from 'preact';
import { ForgetKey, KeyGate } from '../../components/key-gate.js';
import { SubNav } from '../../components/sub-nav.js';

/** The operations pages. */
const LINKS = [
  ['/ops', 'Service levels'],
  ['/ops/usage', 'Usage and cost'],
  ['/ops/nodes', 'Nodes and queue'],
  ['/ops/logs', 'Live logs'],
  ['/ops/system', 'System'],
] as const;

/** A page of the operations area: the heading card, then (with the key) the page's own cards. */
export function OpsFrame(props: { title: string; intro: string; children: ComponentChildren }) {
  return (
    <div class="stack ops">
      <section class="card">
        <h1>{props.title}</h1>
        <SubNav label="Operations" links={LINKS} />
        <p class="hint">{props.intro}</p>
      </section>
      <KeyGate kind="adminKey">
        <p class="ops-identity">
          <span>
            Acting with the <strong>administrator key</strong> (kept in this tab only).
          </span>
          <ForgetKey kind="adminKey" />
        </p>
        {props.children}
      </KeyGate>
    </div>
  );
}

/** An error of the page's last call, in an alert region that is always present. */
export function ErrorLine(props: { message: string }) {
  return (
    <p role="alert" class="error">
      {props.message}
    </p>
  );
}
