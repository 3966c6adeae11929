/** One term and its value in a definition list (`<dl>`): the facts of a record on a page. */
import type { ComponentChildren } from 'preact';

export function Fact(props: { term: string; children: ComponentChildren }) {
  return (
    <div>
      <dt>{props.term}</dt>
      <dd>{props.children}</dd>
    </div>
  );
}
