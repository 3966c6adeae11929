/**
 * Calls a loader now and then every `intervalMs` while the tab is visible: polling pauses when the
 * tab is hidden and starts again (with a call at once) when it is shown. One call at a time; a
 * call still running when the page leaves is aborted.
 */
import { useEffect, useRef, useState } from 'preact/hooks';

/** What the polled loader answered last, when, and the error of the last call (if it failed). */
export interface Polled<T> {
  readonly value: T | null;
  readonly updatedAt: Date | null;
  readonly error: unknown;
  readonly paused: boolean;
}

/** Polls `load` every `intervalMs` while the document is visible. */
export function usePolling<T>(load: (signal: AbortSignal) => Promise<T>, intervalMs: number): Polled<T> {
  const [state, setState] = useState<Polled<T>>({ value: null, updatedAt: null, error: null, paused: false });
  const loader = useRef(load);
  loader.current = load;

  useEffect(() => {
    const abort = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let running = false;
    const tick = async (): Promise<void> => {
      clearTimeout(timer);
      if (document.visibilityState === 'hidden') {
        setState((s) => ({ ...s, paused: true }));
        return;
      }
      if (running) return;
      running = true;
      try {
        const value = await loader.current(abort.signal);
        setState({ value, updatedAt: new Date(), error: null, paused: false });
      } catch (err) {
        if (abort.signal.aborted) return;
        setState((s) => ({ ...s, error: err, paused: false }));
      } finally {
        running = false;
      }
      if (!abort.signal.aborted) timer = setTimeout(() => void tick(), intervalMs);
    };
    const onVisibility = (): void => {
      if (document.visibilityState === 'visible') void tick();
    };
    document.addEventListener('visibilitychange', onVisibility);
    void tick();
    return () => {
      abort.abort();
      clearTimeout(timer);
      document.removeEventListener('visibilitychange', onVisibility);
    };
  }, [intervalMs]);
  return state;
}
