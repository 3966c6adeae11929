/**
 * A uPlot chart that fills its container's width (and follows it as the container resizes, phone
 * width included), drawn in the page's colours (light or dark, again when the scheme changes).
 * The canvas is an image for assistive technology: `label` names it; each page puts a text
 * alternative (a visually hidden table of the values) next to it.
 */
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

/** One series of a chart. */
export interface ChartSeries {
  readonly label: string;
  /** CSS variable of its colour, e.g. "--accent". */
  readonly color: `--${string}`;
  /** Values per x; null is a gap. */
  readonly values: readonly (number | null)[];
}

/** What a chart draws. */
export interface ChartProps {
  /** Accessible name of the image (what the chart shows). */
  readonly label: string;
  /** x values: unix seconds when `time`, else indexes. */
  readonly xs: readonly number[];
  readonly series: readonly ChartSeries[];
  /** Label of the x axis. */
  readonly xLabel: string;
  /** Label of the y axis. */
  readonly yLabel: string;
  /** Bars instead of lines. @default false */
  readonly bars?: boolean;
  /** Fixed y range, e.g. [0, 1] for a share; automatic without. */
  readonly yRange?: readonly [number, number];
  /** Formats a y value on the axis and in the legend. */
  readonly format?: (v: number) => string;
}

const HEIGHT = 220;

const cssColor = (name: string): string => getComputedStyle(document.documentElement).getPropertyValue(name).trim() || '#888';

function optionsOf(props: ChartProps, width: number): uPlot.Options {
  const fg = cssColor('--fg');
  const grid = cssColor('--border');
  const format = props.format ?? ((v: number) => String(v));
  const axis = (label: string, y: boolean): uPlot.Axis => ({
    label,
    stroke: fg,
    grid: { stroke: grid, width: 1 },
    ticks: { stroke: grid, width: 1 },
    ...(y ? { values: (_u: uPlot, splits: number[]) => splits.map(format), size: 90 } : {}),
  });
  return {
    width,
    height: HEIGHT,
    legend: { show: true, live: true },
    cursor: { drag: { x: false, y: false } },
    scales: { x: { time: true }, y: props.yRange ? { range: [props.yRange[0], props.yRange[1]] } : { auto: true } },
    axes: [axis(props.xLabel, false), axis(props.yLabel, true)],
    series: [
      { label: 'Time' },
      ...props.series.map((s) => {
        const color = cssColor(s.color);
        return {
          label: s.label,
          stroke: color,
          width: 2,
          spanGaps: false,
          value: (_u: uPlot, v: number | null) => (v === null ? '—' : format(v)),
          ...(props.bars ? { fill: color, paths: uPlot.paths.bars?.({ size: [0.6, 48] }), points: { show: false } } : { points: { show: true, size: 5 } }),
        };
      }),
    ],
  };
}

/** A chart as wide as its container. */
export function Chart(props: ChartProps) {
  const holder = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);

  // Built again when what it draws changes (and when the colour scheme changes).
  useEffect(() => {
    const el = holder.current;
    if (!el) return;
    const build = (): void => {
      plot.current?.destroy();
      const data = [props.xs as number[], ...props.series.map((s) => s.values as (number | null)[])] as uPlot.AlignedData;
      plot.current = new uPlot(optionsOf(props, Math.max(200, el.clientWidth)), data, el);
    };
    build();
    const scheme = window.matchMedia('(prefers-color-scheme: dark)');
    scheme.addEventListener('change', build);
    const resize = new ResizeObserver(() => {
      const width = Math.max(200, el.clientWidth);
      if (plot.current && plot.current.width !== width) plot.current.setSize({ width, height: HEIGHT });
    });
    resize.observe(el);
    return () => {
      resize.disconnect();
      scheme.removeEventListener('change', build);
      plot.current?.destroy();
      plot.current = null;
    };
  }, [props.xs, props.series, props.label, props.xLabel, props.yLabel, props.bars]);

  return <div class="ops-chart" role="img" aria-label={props.label} ref={holder} />;
}
