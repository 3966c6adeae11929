/** The waveform of a result: the audio decoded by the browser, drawn as peak bars on a canvas. */
import { useEffect, useRef, useState } from 'preact/hooks';

/** Peak level per column of `samples`, 0..1. */
export function peaks(samples: Float32Array, columns: number): Float32Array {
  const out = new Float32Array(columns);
  const per = Math.max(1, Math.floor(samples.length / columns));
  for (let c = 0; c < columns; c++) {
    let max = 0;
    const end = Math.min(samples.length, (c + 1) * per);
    for (let i = c * per; i < end; i++) max = Math.max(max, Math.abs(samples[i]!));
    out[c] = max;
  }
  return out;
}

export function Waveform({ url }: { url: string }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const [state, setState] = useState<'loading' | 'drawn' | 'unavailable'>('loading');

  useEffect(() => {
    let cancelled = false;
    const ctx = new AudioContext();
    (async () => {
      const bytes = await (await fetch(url, { credentials: 'same-origin' })).arrayBuffer();
      const audio = await ctx.decodeAudioData(bytes);
      const el = canvas.current;
      if (cancelled || !el) return;
      const width = el.clientWidth * devicePixelRatio;
      const height = el.clientHeight * devicePixelRatio;
      el.width = width;
      el.height = height;
      const g = el.getContext('2d');
      if (!g) return;
      const columns = Math.max(1, Math.floor(width / (3 * devicePixelRatio)));
      const levels = peaks(audio.getChannelData(0), columns);
      g.fillStyle = getComputedStyle(el).color;
      const barWidth = width / columns;
      for (let c = 0; c < columns; c++) {
        const h = Math.max(devicePixelRatio, levels[c]! * height);
        g.fillRect(c * barWidth, (height - h) / 2, Math.max(1, barWidth - devicePixelRatio), h);
      }
      el.dataset['columns'] = String(columns);
      setState('drawn');
    })()
      .catch(() => !cancelled && setState('unavailable'))
      .finally(() => void ctx.close());
    return () => {
      cancelled = true;
    };
  }, [url]);

  return <canvas ref={canvas} class="waveform" data-state={state} role="img" aria-label={state === 'drawn' ? 'Waveform of the audio' : 'Waveform loading'} />;
}
