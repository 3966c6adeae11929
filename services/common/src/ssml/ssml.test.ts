import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TtsError } from '../errors/tts-error.js';
import { dateFields, isSsml, parseSsml, type SsmlSegment } from './ssml.js';

const PLAIN = { rate: 1, pitch: 1 };

/** Asserts that `text` is refused with SSML_INVALID whose message contains each of `parts`. */
function assertRefused(text: string, ...parts: string[]): void {
  assert.throws(() => parseSsml(text, 'input'), (error: unknown) => {
    assert.ok(error instanceof TtsError, `expected TtsError, got ${String(error)}`);
    assert.equal(error.code, 'SSML_INVALID');
    assert.equal(error.spec.http, 422);
    assert.deepEqual(error.loc, ['body', 'input']);
    for (const part of parts) assert.ok(error.message.includes(part), `"${error.message}" lacks "${part}"`);
    return true;
  });
}

describe('isSsml', () => {
  it('is true only for a text that starts with a <speak> element', () => {
    assert.equal(isSsml('<speak>hi</speak>'), true);
    assert.equal(isSsml('  \n<speak version="1.1">hi</speak>'), true);
    assert.equal(isSsml('<speak/>'), true);
    assert.equal(isSsml('a < b > c'), false);
    assert.equal(isSsml('<speaker>hi</speaker>'), false);
    assert.equal(isSsml('Say <speak>hi</speak>'), false);
    assert.equal(isSsml('<p>hi</p>'), false);
  });
});

describe('parseSsml: elements', () => {
  it('reads text, entities and CDATA as text', () => {
    assert.deepEqual(parseSsml('<speak>a &lt; b &amp; <![CDATA[c > d]]></speak>'), [{ kind: 'text', text: 'a < b & c > d', prosody: PLAIN }]);
  });

  it('accepts the usual <speak> attributes and comments', () => {
    const doc = '<speak version="1.1" xmlns="http://www.w3.org/2001/10/synthesis" xmlns:xsi="x" xml:lang="en-US"><!-- note -->Hi</speak>';
    assert.deepEqual(parseSsml(doc), [{ kind: 'text', text: 'Hi', prosody: PLAIN }]);
  });

  it('reads <break time> in ms and s, and <break strength>', () => {
    const segments = parseSsml('<speak>a<break time="500ms"/>b<break time="2s"/>c<break time="1.5s"/><break strength="none"/><break strength="x-weak"/><break strength="weak"/><break/><break strength="strong"/><break strength="x-strong"/></speak>');
    const breaks = segments.filter((s) => s.kind === 'break').map((s) => (s as { seconds: number }).seconds);
    assert.deepEqual(breaks, [0.5, 2, 1.5, 0, 0.1, 0.25, 0.5, 0.75, 1.2]);
  });

  it('accepts a break of exactly 10 s', () => {
    assert.deepEqual(parseSsml('<speak><break time="10s"/></speak>'), [{ kind: 'break', seconds: 10 }]);
  });

  it('reads <say-as> of every kind, the date format with a default by shape', () => {
    const sayAs = (inner: string): SsmlSegment | undefined => parseSsml(`<speak>${inner}</speak>`)[0];
    assert.deepEqual(sayAs('<say-as interpret-as="characters">ABC</say-as>'), { kind: 'text', text: 'ABC', prosody: PLAIN, sayAs: { interpretAs: 'characters' } });
    assert.deepEqual(sayAs('<say-as interpret-as="cardinal">1,234</say-as>'), { kind: 'text', text: '1,234', prosody: PLAIN, sayAs: { interpretAs: 'cardinal' } });
    assert.deepEqual(sayAs('<say-as interpret-as="ordinal">3rd</say-as>'), { kind: 'text', text: '3rd', prosody: PLAIN, sayAs: { interpretAs: 'ordinal' } });
    assert.deepEqual(sayAs('<say-as interpret-as="telephone">+1 (555) 123-4567</say-as>'), { kind: 'text', text: '+1 (555) 123-4567', prosody: PLAIN, sayAs: { interpretAs: 'telephone' } });
    assert.deepEqual(sayAs('<say-as interpret-as="date" format="dmy">25/12/2024</say-as>'), { kind: 'text', text: '25/12/2024', prosody: PLAIN, sayAs: { interpretAs: 'date', format: 'dmy' } });
    assert.deepEqual(sayAs('<say-as interpret-as="date">2024-12-25</say-as>'), { kind: 'text', text: '2024-12-25', prosody: PLAIN, sayAs: { interpretAs: 'date', format: 'ymd' } });
    assert.deepEqual(sayAs('<say-as interpret-as="date">12/25/2024</say-as>'), { kind: 'text', text: '12/25/2024', prosody: PLAIN, sayAs: { interpretAs: 'date', format: 'mdy' } });
  });

  it('reads <phoneme alphabet="ipa" ph> with its text', () => {
    assert.deepEqual(parseSsml('<speak><phoneme alphabet="ipa" ph="təˈmɑːtoʊ">tomato</phoneme></speak>'), [{ kind: 'phoneme', ipa: 'təˈmɑːtoʊ', text: 'tomato', prosody: PLAIN }]);
    assert.deepEqual(parseSsml('<speak><phoneme ph="pi">pea</phoneme></speak>'), [{ kind: 'phoneme', ipa: 'pi', text: 'pea', prosody: PLAIN }]);
  });

  it('replaces the text of <sub> by its alias, inside the surrounding sentence', () => {
    assert.deepEqual(parseSsml('<speak>See the <sub alias="World Wide Web">WWW</sub> now.</speak>'), [{ kind: 'text', text: 'See the  World Wide Web  now.', prosody: PLAIN }]);
  });

  it('reads <prosody rate> by name, percentage and factor, nested rates multiply; pitch by name, semitones and percent', () => {
    const prosodyOf = (attrs: string): { rate: number; pitch: number } => {
      const [segment] = parseSsml(`<speak><prosody ${attrs}>x</prosody></speak>`);
      assert.equal(segment?.kind, 'text');
      return (segment as { prosody: { rate: number; pitch: number } }).prosody;
    };
    assert.equal(prosodyOf('rate="x-slow"').rate, 0.5);
    assert.equal(prosodyOf('rate="slow"').rate, 0.75);
    assert.equal(prosodyOf('rate="medium"').rate, 1);
    assert.equal(prosodyOf('rate="fast"').rate, 1.25);
    assert.equal(prosodyOf('rate="x-fast"').rate, 1.6);
    assert.equal(prosodyOf('rate="80%"').rate, 0.8);
    assert.equal(prosodyOf('rate="1.5"').rate, 1.5);
    assert.equal(prosodyOf('pitch="high"').pitch, 1.1);
    assert.ok(Math.abs(prosodyOf('pitch="+12st"').pitch - 2) < 1e-9);
    assert.ok(Math.abs(prosodyOf('pitch="-10%"').pitch - 0.9) < 1e-9);
    const [nested] = parseSsml('<speak><prosody rate="200%"><prosody rate="fast">x</prosody></prosody></speak>');
    assert.deepEqual(nested, { kind: 'text', text: 'x', prosody: { rate: 2.5, pitch: 1 } });
  });

  it('marks the edges of <p> and <s> as sentence boundaries', () => {
    assert.deepEqual(
      parseSsml('<speak><p><s>One</s><s>Two</s></p></speak>').map((s) => (s.kind === 'text' ? s.text : s.kind)),
      ['boundary', 'boundary', 'One', 'boundary', 'boundary', 'Two', 'boundary', 'boundary'],
    );
  });
});

describe('parseSsml: errors name the element and its position', () => {
  it('refuses an unknown element at its line and column', () => {
    assertRefused('<speak>\n  Hello <audio src="x.wav"/></speak>', '<audio>', 'not supported', 'line 2, column 9');
  });

  it('refuses an unknown attribute', () => {
    assertRefused('<speak><break volume="loud"/></speak>', '<break>', '"volume"', 'line 1, column 8');
    assertRefused('<speak><prosody volume="loud">x</prosody></speak>', '<prosody>', '"volume"');
  });

  it('refuses a break over 10 s, and bad time or strength values', () => {
    assertRefused('<speak>Wait<break time="10.5s"/></speak>', '<break>', 'longer than 10 s', 'line 1, column 12');
    assertRefused('<speak><break time="20000ms"/></speak>', 'longer than 10 s');
    assertRefused('<speak><break time="soon"/></speak>', '<break>', '"soon"');
    const sixty = '<break time="10s"/>'.repeat(6);
    assert.equal(parseSsml(`<speak>${sixty}</speak>`).length, 6);
    assertRefused(`<speak>${sixty}<break time="1ms"/></speak>`, '<break>', 'over the 60 s', 'column 122');
    assertRefused('<speak><break strength="huge"/></speak>', '<break>', '"huge"');
  });

  it('refuses bad <say-as> kinds, formats and texts', () => {
    assertRefused('<speak><say-as interpret-as="currency">$5</say-as></speak>', '<say-as>', '"currency"', 'column 8');
    assertRefused('<speak><say-as>5</say-as></speak>', '<say-as>', 'interpret-as');
    assertRefused('<speak><say-as interpret-as="date" format="qqq">1/2/2024</say-as></speak>', '<say-as>', '"qqq"');
    assertRefused('<speak><say-as interpret-as="cardinal" format="mdy">5</say-as></speak>', 'only read with interpret-as="date"');
    assertRefused('<speak><say-as interpret-as="cardinal">five</say-as></speak>', '<say-as>', 'cannot read "five"');
    assertRefused('<speak><say-as interpret-as="ordinal">x</say-as></speak>', 'cannot read');
    assertRefused('<speak><say-as interpret-as="telephone">call me</say-as></speak>', 'cannot read');
    assertRefused('<speak><say-as interpret-as="date" format="mdy">13/25/2024</say-as></speak>', '<say-as>', 'month 13');
    assertRefused('<speak><say-as interpret-as="date" format="ymd">2024-01</say-as></speak>', '3 fields');
    assertRefused('<speak><say-as interpret-as="characters"> </say-as></speak>', 'no text');
  });

  it('refuses a bad <phoneme>, <sub> or <prosody>', () => {
    assertRefused('<speak><phoneme alphabet="x-sampa" ph="t@">to</phoneme></speak>', '<phoneme>', '"x-sampa"');
    assertRefused('<speak><phoneme alphabet="ipa">to</phoneme></speak>', '<phoneme>', 'ph');
    assertRefused('<speak><sub>WWW</sub></speak>', '<sub>', 'alias');
    assertRefused('<speak><prosody rate="warp">x</prosody></speak>', '<prosody>', '"warp"');
    assertRefused('<speak><prosody rate="500%">x</prosody></speak>', 'outside');
    assertRefused('<speak><prosody rate="300%"><prosody rate="300%">x</prosody></prosody></speak>', 'nested rates');
    assertRefused('<speak><prosody pitch="+30st">x</prosody></speak>', '<prosody>', 'octave');
  });

  it('refuses elements inside text-only elements and a nested <speak>', () => {
    assertRefused('<speak><sub alias="a"><break/></sub></speak>', '<break>', 'inside <sub>');
    assertRefused('<speak><p><speak>x</speak></p></speak>', '<speak>', 'root');
  });

  it('refuses malformed XML with the position of the fault', () => {
    assertRefused('<speak>Hello <break time="1s"></speak>', 'malformed XML', 'close tag', 'line 1, column 31');
    assertRefused('<speak>\nHello', 'malformed XML', 'Unclosed root tag', 'line 2');
    assertRefused('<speak>a < b</speak>', 'malformed XML', 'line 1, column 10');
    assertRefused('<speak>&nbsp;</speak>', 'malformed XML');
    assertRefused('<speak break="1s>x</speak>', 'malformed XML');
  });

  it('refuses a DOCTYPE (no entity expansion), text after the root and a second root', () => {
    assertRefused('<speak><!DOCTYPE speak [<!ENTITY x "y">]>&x;</speak>', 'malformed XML');
    assertRefused('<speak>a</speak> trailing', 'malformed XML', 'column 18');
    assertRefused('<speak>a</speak><speak>b</speak>', '<speak>', 'one <speak>', 'column 17');
  });
});

describe('dateFields', () => {
  it('reads fields in format order', () => {
    assert.deepEqual(dateFields('25.12.2024', 'dmy'), { day: 25, month: 12, year: '2024' });
    assert.deepEqual(dateFields('2024', 'y'), { year: '2024' });
    assert.throws(() => dateFields('12/40', 'md'), /day 40/);
  });
});
