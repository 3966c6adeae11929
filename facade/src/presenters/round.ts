/** `value` rounded to `digits` decimals, for figures in JSON answers. */
export const round = (value: number, digits: number): number => Math.round(value * 10 ** digits) / 10 ** digits;
