/**
 * The outcome of an action on a page (studio, administration, operations): a success line in a
 * polite live region and an error (the message for its code) in an alert. Both regions are always
 * in the page, so assistive technology announces what changes in them.
 */
import { useCallback, useMemo, useState } from 'preact/hooks';
import { messageFor } from '../lib/messages.js';

/** What the last action ended with. */
export interface Outcome {
  readonly ok: string;
  readonly error: string;
}

/** Setters of an Outcome. */
export interface OutcomeControl {
  /** Announces a success (and clears the error). */
  ok(text: string): void;
  /** Shows the message for an error (and clears the success). */
  fail(err: unknown): void;
  /** Clears both. */
  clear(): void;
}

/** The outcome of the page's last action and its setters. */
export function useOutcome(): [Outcome, OutcomeControl] {
  const [outcome, setOutcome] = useState<Outcome>({ ok: '', error: '' });
  const control = useMemo<OutcomeControl>(
    () => ({
      ok: (text) => setOutcome({ ok: text, error: '' }),
      fail: (err) => setOutcome({ ok: '', error: messageFor(err) }),
      clear: () => setOutcome({ ok: '', error: '' }),
    }),
    [],
  );
  return [outcome, control];
}

/** Runs an action of the page; what it resolves to, a sentence or nothing, is announced as its success. */
export type RunAction = (action: () => Promise<string | void>) => Promise<void>;

/**
 * The actions of a form or control, reported in `outcome`: busy while one runs, the outcome
 * cleared as it starts, its sentence announced when it succeeds, the message for its error when
 * it fails. Every studio, administration and operations action goes through one of these.
 */
export function useAction(outcome: OutcomeControl): [busy: boolean, run: RunAction] {
  const [busy, setBusy] = useState(false);
  const run = useCallback<RunAction>(
    async (action) => {
      setBusy(true);
      outcome.clear();
      try {
        const said = await action();
        if (said) outcome.ok(said);
      } catch (err) {
        outcome.fail(err);
      } finally {
        setBusy(false);
      }
    },
    [outcome],
  );
  return [busy, run];
}

/** The two live regions of an Outcome. */
export function OutcomeView(props: { outcome: Outcome }) {
  return (
    <div class="outcome">
      <p role="status" class="ok">
        {props.outcome.ok}
      </p>
      <p role="alert" class="error">
        {props.outcome.error}
      </p>
    </div>
  );
}
