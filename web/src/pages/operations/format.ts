/**
 * How the operations pages write figures: shares, durations, burn rates, sizes, with English
 * grouping throughout so a figure reads the same in every table (dates and names: lib/format.ts).
 */

/** A share as a percentage, e.g. "99.95 %"; a dash for none. */
export function percent(v: number | null | undefined, digits = 2): string {
  return v === null || v === undefined ? '—' : `${(v * 100).toFixed(digits)} %`;
}

/** Milliseconds, rounded, e.g. "412 ms"; a dash for none. */
export function millis(v: number | null | undefined): string {
  return v === null || v === undefined ? '—' : `${Math.round(v).toLocaleString('en')} ms`;
}

/** A burn rate, e.g. "2.50×"; a dash for none. */
export function burn(v: number | null | undefined): string {
  return v === null || v === undefined ? '—' : `${v.toFixed(2)}×`;
}

/** A whole number with grouping; a dash for none. */
export function count(n: number | null | undefined): string {
  return n === null || n === undefined ? '—' : n.toLocaleString('en');
}

/** A decimal number with up to `digits` decimals; a dash for none. */
export function decimal(n: number | null | undefined, digits = 2): string {
  return n === null || n === undefined ? '—' : n.toLocaleString('en', { maximumFractionDigits: digits });
}

/** Bytes in binary units, e.g. "1.5 MiB"; a dash for none. */
export function bytes(n: number | null | undefined): string {
  if (n === null || n === undefined) return '—';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(i === 0 ? 0 : 1)} ${units[i]}`;
}

/** A duration in seconds as "3 d 4 h", "5 h 12 min", "42 s". */
export function duration(sec: number | null | undefined): string {
  if (sec === null || sec === undefined) return '—';
  const s = Math.max(0, Math.round(sec));
  const d = Math.floor(s / 86_400);
  const h = Math.floor((s % 86_400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (d > 0) return `${d} d ${h} h`;
  if (h > 0) return `${h} h ${m} min`;
  if (m > 0) return `${m} min ${s % 60} s`;
  return `${s} s`;
}

/** A window of minutes in words: "5 minutes", "1 hour", "3 days". */
export function windowName(minutes: number): string {
  if (minutes % 1440 === 0) return minutes === 1440 ? '1 day' : `${minutes / 1440} days`;
  if (minutes % 60 === 0) return minutes === 60 ? '1 hour' : `${minutes / 60} hours`;
  return minutes === 1 ? '1 minute' : `${minutes} minutes`;
}
