/** The application shell: a header and the public text-to-speech page. */
import { TtsPage } from './tts-page.js';

export function App() {
  return (
    <>
      <a class="skip" href="#main">Skip to the form</a>
      <header class="top">
        <span class="brand" aria-hidden="true" />
        <span class="title">Text to speech</span>
      </header>
      <main id="main" tabIndex={-1}>
        <TtsPage />
      </main>
    </>
  );
}
