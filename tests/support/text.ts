/** Texts for tests and benches. */

/** Harvard sentences (IEEE 1969), lists 1 and 2. */
export const HARVARD_SENTENCES: readonly string[] = [
  'The birch canoe slid on the smooth planks.',
  'Glue the sheet to the dark blue background.',
  'It is easy to tell the depth of a well.',
  'These days a chicken leg is a rare dish.',
  'Rice is often served in round bowls.',
  'The juice of lemons makes fine punch.',
  'The box was thrown beside the parked truck.',
  'The hogs were fed chopped corn and garbage.',
  'Four hours of steady work faced us.',
  'A large size in stockings is hard to sell.',
];

/** Harvard sentences in turn, joined by spaces, until the text has at least `chars` characters. */
export function harvardText(chars: number): string {
  const out: string[] = [];
  let n = 0;
  for (let i = 0; n < chars; i++) {
    const s = HARVARD_SENTENCES[i % HARVARD_SENTENCES.length]!;
    out.push(s);
    n += s.length + 1;
  }
  return out.join(' ');
}
