import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TtsError } from '@tts/common';
import { parseDay, parseDayRange, parseFilter, parseFlag, parseLimit, REPORT_LIMIT } from './report-query.js';

const code = (c: string, loc?: readonly (string | number)[]) => (e: unknown) =>
  e instanceof TtsError && e.code === c && (loc === undefined || JSON.stringify(e.loc) === JSON.stringify(loc));

describe('report query parameters', () => {
  it('accepts real calendar days and absent values', () => {
    assert.equal(parseDay('2024-02-29', 'day_from'), '2024-02-29');
    assert.equal(parseDay('0001-01-01', 'day_from'), '0001-01-01');
    assert.equal(parseDay('9999-12-31', 'day_to'), '9999-12-31');
    assert.equal(parseDay(undefined, 'day_from'), null);
    assert.equal(parseDay('', 'day_from'), null);
  });

  it('refuses days that do not parse with USAGE_DATE_INVALID naming the parameter', () => {
    for (const bad of ['2023-02-29', '2024-13-01', '2024-00-10', '2024-04-31', '0000-01-01', '2024-1-01', '24-01-01', '2024/01/01', '2024-01-01T00:00:00Z', ' 2024-01-01', 'yesterday', 20240101, true]) {
      assert.throws(() => parseDay(bad, 'day_to'), code('USAGE_DATE_INVALID', ['query', 'day_to']), String(bad));
    }
  });

  it('refuses day_from after day_to with USAGE_DATE_RANGE_INVALID, allows equal days and open sides', () => {
    assert.throws(() => parseDayRange({ day_from: '2024-05-02', day_to: '2024-05-01' }), code('USAGE_DATE_RANGE_INVALID'));
    assert.deepEqual(parseDayRange({ day_from: '2024-05-01', day_to: '2024-05-01' }), { dayFrom: '2024-05-01', dayTo: '2024-05-01' });
    assert.deepEqual(parseDayRange({ day_to: '2024-05-01' }), { dayFrom: null, dayTo: '2024-05-01' });
    assert.deepEqual(parseDayRange({}), { dayFrom: null, dayTo: null });
  });

  it('bounds limit to 1..5000 with default 500', () => {
    assert.equal(parseLimit(undefined), 500);
    assert.equal(parseLimit('1'), 1);
    assert.equal(parseLimit(5000), 5000);
    for (const bad of [0, 5001, -1, 1.5, '10.5', 'abc', '1e3', '99999999999999999999', Number.NaN]) {
      assert.throws(() => parseLimit(bad), code('VALIDATION_FAILED', ['query', 'limit']), String(bad));
    }
    assert.equal(parseLimit('200', { min: 1, max: 200, default: 30 }), 200);
    assert.throws(() => parseLimit('201', { min: 1, max: 200, default: 30 }), code('VALIDATION_FAILED'));
    assert.deepEqual(REPORT_LIMIT, { min: 1, max: 5000, default: 500 });
  });

  it('parses flags and filters, refusing other values', () => {
    assert.equal(parseFlag(undefined, 'only_denied'), false);
    assert.equal(parseFlag('true', 'only_denied'), true);
    assert.equal(parseFlag(true, 'only_denied'), true);
    assert.equal(parseFlag('0', 'only_denied'), false);
    assert.throws(() => parseFlag('yes please', 'only_denied'), code('VALIDATION_FAILED', ['query', 'only_denied']));
    assert.equal(parseFilter('POST /api/tts', 'endpoint'), 'POST /api/tts');
    assert.equal(parseFilter('', 'endpoint'), null);
    assert.throws(() => parseFilter('x'.repeat(201), 'endpoint'), code('VALIDATION_FAILED', ['query', 'endpoint']));
    assert.throws(() => parseFilter(['a', 'b'], 'key_id'), code('VALIDATION_FAILED', ['query', 'key_id']));
  });
});
