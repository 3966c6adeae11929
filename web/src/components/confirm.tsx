/** The question that guards an action which cannot be undone: the action's button, and one that backs out. */
import type { ComponentChildren } from 'preact';

/** Asks `question`; `onYes` does the action, `onNo` backs out. Both wait while `busy`. */
export function Confirm(props: {
  /** The question's id, which names the group. */
  id: string;
  question: ComponentChildren;
  /** What the action's button says. */
  yes: ComponentChildren;
  /** What the backing-out button says. @default "Cancel" */
  no?: string;
  /** The action destroys something the person made (a red button). */
  danger?: boolean;
  busy: boolean;
  onYes: () => void;
  onNo: () => void;
}) {
  return (
    <div class="confirm" role="group" aria-labelledby={props.id}>
      <p id={props.id}>{props.question}</p>
      <div class="actions">
        <button type="button" class={props.danger ? 'danger' : undefined} disabled={props.busy} onClick={props.onYes}>
          {props.yes}
        </button>
        <button type="button" class="secondary" disabled={props.busy} onClick={props.onNo}>
          {props.no ?? 'Cancel'}
        </button>
      </div>
    </div>
  );
}
