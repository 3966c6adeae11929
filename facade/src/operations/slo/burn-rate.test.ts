import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { burnRate, evaluateAlerts, MinuteSeries } from './burn-rate.js';
import { BURN_RATE_RULES } from './objectives.js';

const objective = { availability: 0.999, latencyP95Ms: 1000 };
const minute = (age: number, requests: number, errors = 0, slow = 0) => ({ age, requests, errors, served: requests - errors, slow });

describe('burn rate', () => {
  it('sums any window of a minute series', () => {
    const s = new MinuteSeries(10, [minute(0, 5, 1), minute(3, 10, 2, 4), minute(9, 1), minute(12, 100)]);
    assert.deepEqual(s.window(0, 4), { requests: 15, errors: 3, served: 12, slow: 4 });
    assert.deepEqual(s.window(1, 2), { requests: 0, errors: 0, served: 0, slow: 0 });
    assert.deepEqual(s.window(3, 100), { requests: 11, errors: 2, served: 9, slow: 4 }, 'clipped to the series; ages past it are ignored');
  });

  it('is the bad share over the budget, 0 without traffic', () => {
    assert.ok(Math.abs(burnRate('availability', { requests: 1000, errors: 2, served: 998, slow: 0 }, objective) - 2) < 1e-9);
    assert.ok(Math.abs(burnRate('latency', { requests: 100, errors: 0, served: 100, slow: 10 }, objective) - 2) < 1e-9);
    assert.equal(burnRate('availability', { requests: 0, errors: 0, served: 0, slow: 0 }, objective), 0);
  });

  it('a rule holds while both windows burn too fast and the long window has enough traffic; since and until follow', () => {
    const page = BURN_RATE_RULES[0]!; // 14.4x over 60 and 5 minutes
    // 100 requests 20 minutes ago, 10 % failing (burn 100): fires from then until the 5-minute window empties.
    const s = new MinuteSeries(60 + 60, [minute(20, 100, 10)]);
    const episodes = evaluateAlerts(s, objective, [page], 60, 50);
    assert.equal(episodes.length, 1);
    const e = episodes[0]!;
    assert.deepEqual([e.sli, e.sinceAge, e.untilAge, e.sinceTruncated], ['availability', 20, 15, false]);
    assert.ok(Math.abs(e.longBurnRate - 100) < 1e-9);
    // The same traffic now: firing, no until.
    const now = evaluateAlerts(new MinuteSeries(120, [minute(0, 100, 10)]), objective, [page], 60, 50);
    assert.deepEqual(now.map((x) => [x.sinceAge, x.untilAge]), [[0, null]]);
    // Below the minimum traffic nothing fires, however bad.
    assert.deepEqual(evaluateAlerts(new MinuteSeries(120, [minute(0, 49, 49)]), objective, [page], 60, 50), []);
    // A burn below the factor does not fire.
    assert.deepEqual(evaluateAlerts(new MinuteSeries(120, [minute(0, 1000, 14)]), objective, [page], 60, 50), []);
  });
});
