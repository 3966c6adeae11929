/**
 * A share link just made: its address in a read-only field with a "Copy link" button. The copy goes
 * through the clipboard; when the browser refuses, the address is selected for the person to copy.
 */
import { useRef, useState } from 'preact/hooks';

/** The public address of a share token on this site. */
export function shareUrl(token: string): string {
  return `${location.origin}/share/${token}`;
}

/** The link of a new share, for the preset named `name`. */
export function ShareLink(props: { name: string; url: string; onClose: () => void }) {
  const field = useRef<HTMLInputElement>(null);
  const [said, setSaid] = useState('');
  async function copy() {
    try {
      await navigator.clipboard.writeText(props.url);
      setSaid('Copied');
    } catch {
      field.current?.focus();
      field.current?.select();
      setSaid('The browser did not allow copying: the link is selected, copy it with Ctrl+C (⌘C).');
    }
  }
  return (
    <section class="card studio-share-link" aria-labelledby="share-link-title">
      <h2 id="share-link-title">Share link for “{props.name}”</h2>
      <p class="hint">Anyone with this link sees the preset (not your notes) and can copy it to their presets. It is shown only now.</p>
      <label for="share-url">Share link</label>
      <input id="share-url" ref={field} readOnly value={props.url} class="studio-mono" onFocus={(e) => e.currentTarget.select()} />
      <div class="actions">
        <button type="button" onClick={() => void copy()}>
          Copy link
        </button>
        <button type="button" class="secondary" onClick={props.onClose}>
          Done
        </button>
        <span class="ok" role="status" aria-live="polite">
          {said}
        </span>
      </div>
    </section>
  );
}
