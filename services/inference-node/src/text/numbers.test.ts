import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  decadeToWords, digitsToWords, fractionToWords, numberToWords, ordinalToWords, yearToWords,
} from './numbers.js';

const CARDINALS: readonly (readonly [number | string, string])[] = [
  [0, 'zero'],
  [7, 'seven'],
  [13, 'thirteen'],
  [21, 'twenty-one'],
  [100, 'one hundred'],
  [101, 'one hundred one'],
  [999, 'nine hundred ninety-nine'],
  [1234, 'one thousand two hundred thirty-four'],
  ['1,234', 'one thousand two hundred thirty-four'],
  [1_000_000, 'one million'],
  [2_000_000_005, 'two billion five'],
  [3_000_000_000_000, 'three trillion'],
  ['1000000000000000000000', 'one sextillion'],
  [-42, 'minus forty-two'],
  ['-0', 'zero'],
  [3.14, 'three point one four'],
  ['0.05', 'zero point zero five'],
  ['.5', 'zero point five'],
  ['-12.50', 'minus twelve point five zero'],
  [1e-7, 'zero point zero zero zero zero zero zero one'],
  [1e21, 'one sextillion'],
  ['\u22125', 'minus five'],
];

for (const [input, expected] of CARDINALS) {
  test(`numberToWords(${JSON.stringify(input)}) is "${expected}"`, () => {
    assert.equal(numberToWords(input), expected);
  });
}

test('numberToWords rejects what is not a number', () => {
  for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, '', '12a', '1,23', '--1', '.']) {
    assert.throws(() => numberToWords(bad), RangeError, `expected RangeError for ${String(bad)}`);
  }
});

const ORDINALS: readonly (readonly [number | string, string])[] = [
  [1, 'first'], [2, 'second'], [3, 'third'], [5, 'fifth'], [8, 'eighth'], [9, 'ninth'], [12, 'twelfth'],
  [20, 'twentieth'], [22, 'twenty-second'], [103, 'one hundred third'], ['1,000', 'one thousandth'],
];

test('ordinalToWords handles irregular and compound ordinals', () => {
  for (const [input, expected] of ORDINALS) assert.equal(ordinalToWords(input), expected, String(input));
});

const YEARS: readonly (readonly [number, string])[] = [
  [1999, 'nineteen ninety-nine'],
  [2024, 'twenty twenty-four'],
  [2000, 'two thousand'],
  [2005, 'two thousand five'],
  [2010, 'twenty ten'],
  [1900, 'nineteen hundred'],
  [1905, 'nineteen oh five'],
  [1066, 'ten sixty-six'],
  [1000, 'one thousand'],
  [476, 'four hundred seventy-six'],
];

test('yearToWords reads years the way people say them', () => {
  for (const [input, expected] of YEARS) assert.equal(yearToWords(input), expected, String(input));
});

test('decadeToWords pluralizes the last word', () => {
  assert.equal(decadeToWords(1990), 'nineteen nineties');
  assert.equal(decadeToWords(2000), 'two thousands');
  assert.equal(decadeToWords(1900), 'nineteen hundreds');
});

test('digitsToWords reads each digit, keeping leading zeros', () => {
  assert.equal(digitsToWords('007'), 'zero zero seven');
  assert.equal(digitsToWords('4-5'), 'four five');
});

test('fractionToWords names halves, quarters and ordinal denominators', () => {
  assert.equal(fractionToWords('1', '2'), 'one half');
  assert.equal(fractionToWords('3', '4'), 'three quarters');
  assert.equal(fractionToWords('1', '3'), 'one third');
  assert.equal(fractionToWords('5', '8'), 'five eighths');
  assert.equal(fractionToWords('2', '3'), 'two thirds');
});
