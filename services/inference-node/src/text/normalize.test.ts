import { test } from 'node:test';
import assert from 'node:assert/strict';
import { normalizeText } from './normalize.js';

/** [input, expected English normalization] */
const CASES: readonly (readonly [string, string])[] = [
  // Cardinals, decimals, negatives, large numbers
  ['1,234', 'one thousand two hundred thirty-four'],
  ['I have 2 cats and 10 dogs.', 'I have two cats and ten dogs.'],
  ['It was -5 outside.', 'It was minus five outside.'],
  ['Pi is 3.14.', 'Pi is three point one four.'],
  ['About .5 of them', 'About point five of them'],
  ['1.5 million people', 'one point five million people'],
  ['3 billion stars', 'three billion stars'],
  ['1,000,000,000,000', 'one trillion'],
  ['Agent 007', 'Agent zero zero seven'],
  ['1,2,3', 'one, two, three'],
  // Ordinals
  ['the 1st, 22nd and 103rd runners', 'the first, twenty-second and one hundred third runners'],
  ['the 21st century', 'the twenty-first century'],
  // Years in context
  ['I was born in 1999.', 'I was born in nineteen ninety-nine.'],
  ['Since 2024, prices rose.', 'Since twenty twenty-four, prices rose.'],
  ['in 2000 and in 2005', 'in two thousand and in two thousand five'],
  ['the 1999 season', 'the nineteen ninety-nine season'],
  ['in 1500 BC', 'in fifteen hundred BC'],
  ['c. 1500', 'circa fifteen hundred'],
  ['She paid 2024 coins.', 'She paid two thousand twenty-four coins.'],
  ['2024 was a good year.', 'twenty twenty-four was a good year.'],
  ['It ended. 1999 began.', 'It ended. nineteen ninety-nine began.'],
  ['Call 911 now.', 'Call nine one one now.'],
  ['from 1990-1995', 'from nineteen ninety to nineteen ninety-five'],
  ['the 1990s and the 80s', 'the nineteen nineties and the eighties'],
  // Currency and percentages
  ['$12.50', 'twelve dollars and fifty cents'],
  ['$1', 'one dollar'],
  ['$0.99', 'ninety-nine cents'],
  ['$1,000,000', 'one million dollars'],
  ['€3 million', 'three million euros'],
  ['$1.5 million', 'one point five million dollars'],
  ['$5M', 'five million dollars'],
  ['£5.20', 'five pounds and twenty pence'],
  ['¥1000', 'one thousand yen'],
  ['It costs 5€.', 'It costs five euros.'],
  ['50¢', 'fifty cents'],
  ['-$5', 'minus five dollars'],
  ['$0.125', 'zero point one two five dollars'],
  ['45%', 'forty-five percent'],
  ['3.5% growth', 'three point five percent growth'],
  ['5-10%', 'five to ten percent'],
  ['$10-$20', 'ten dollars to twenty dollars'],
  // Dates and times
  ['2024-01-15', 'January fifteenth, twenty twenty-four'],
  ['01/15/2024', 'January fifteenth, twenty twenty-four'],
  ['31/12/2024', 'December thirty-first, twenty twenty-four'],
  ['1/15/24', 'January fifteenth, twenty twenty-four'],
  ['15 January 2024', 'the fifteenth of January, twenty twenty-four'],
  ['Jan. 5, 2024', 'January fifth, twenty twenty-four'],
  ['March 3rd', 'March third'],
  ['The 4th of July', 'The fourth of July'],
  ['May 2024', 'May twenty twenty-four'],
  ['3:30 pm', 'three thirty PM'],
  ['14:05', 'fourteen oh five'],
  ['12:00', "twelve o'clock"],
  ['Meet at 5 p.m. Then go home.', 'Meet at five PM. Then go home.'],
  ['at 5 p.m. tomorrow', 'at five PM tomorrow'],
  ['10am', 'ten AM'],
  ['09:15:30', 'nine fifteen and thirty seconds'],
  // Abbreviations
  ['Dr. Smith lives on Main St.', 'Doctor Smith lives on Main Street.'],
  ['St. Louis', 'Saint Louis'],
  ['Visit St. Paul\'s Cathedral.', 'Visit Saint Paul\'s Cathedral.'],
  ['Elm Dr. is closed.', 'Elm Drive is closed.'],
  ['Mr. and Mrs. Smith met Ms. Jones.', 'Mister and Missus Smith met Miz Jones.'],
  ['Mr Smith', 'Mister Smith'],
  ['John Smith Jr. arrived.', 'John Smith Junior arrived.'],
  ['Lakers vs. Celtics', 'Lakers versus Celtics'],
  ['fruit, e.g., apples, i.e. food, etc.', 'fruit, for example, apples, that is food, et cetera.'],
  ['Apples, pears, etc. Then we left.', 'Apples, pears, et cetera. Then we left.'],
  ['approx. 5 km', 'approximately five kilometers'],
  ['No. 5 and no. 7', 'Number five and number seven'],
  ['see p. 12', 'see page twelve'],
  ['Apple Inc. announced it.', 'Apple Incorporated announced it.'],
  ['Smith et al. wrote it.', 'Smith and others wrote it.'],
  ['The U.S. Army', 'The US Army'],
  ['I live in the U.S. The weather is fine.', 'I live in the US. The weather is fine.'],
  ['J. R. R. Tolkien', 'J R R Tolkien'],
  ['plan B. The end.', 'plan B. The end.'],
  ['NASA and the FBI', 'NASA and the FBI'],
  // Units
  ['5 km', 'five kilometers'],
  ['1 kg', 'one kilogram'],
  ['2.5kg', 'two point five kilograms'],
  ['60 mph', 'sixty miles per hour'],
  ['100 km/h', 'one hundred kilometers per hour'],
  ['20°C', 'twenty degrees Celsius'],
  ['-5 °F', 'minus five degrees Fahrenheit'],
  ['It was 30° outside.', 'It was thirty degrees outside.'],
  ['16 GB of RAM', 'sixteen gigabytes of RAM'],
  ['a 5-km run', 'a five-kilometer run'],
  ['5\'10"', 'five feet ten inches'],
  // URLs and e-mail
  ['https://example.com/docs', 'example dot com slash docs'],
  ['Go to www.google.com now.', 'Go to W W W dot google dot com now.'],
  ['See example.org.', 'See example dot org.'],
  ['a.b@c.org', 'a dot b at c dot org'],
  ['Mail john_doe@mail.example.co.uk.', 'Mail john underscore doe at mail dot example dot co dot uk.'],
  // Phone numbers
  ['Call (555) 123-4567.', 'Call five five five, one two three, four five six seven.'],
  ['1-800-555-1234', 'one, eight zero zero, five five five, one two three four'],
  ['+44 20 7946 0958', 'plus four four, two zero, seven nine four six, zero nine five eight'],
  ['Call 555-1234.', 'Call five five five, one two three four.'],
  ['500-1000 words', 'five hundred to one thousand words'],
  // Symbols
  ['Tom & Jerry', 'Tom and Jerry'],
  ['2 + 2 = 4', 'two plus two equals four'],
  ['#SummerVibes', 'hashtag Summer Vibes'],
  ['#1 fan', 'number one fan'],
  ['@jack', 'at jack'],
  ['C++ and C#', 'C plus plus and C sharp'],
  ['he/she and/or they', 'he or she and or they'],
  ['open 24/7', 'open twenty-four seven'],
  ['The cat (a tabby) sat.', 'The cat, a tabby, sat.'],
  // Fractions, ranges, versions, mixed tokens
  ['3/4', 'three quarters'],
  ['1/2 cup', 'one half cup'],
  ['1 1/2 cups', 'one and a half cups'],
  ['2½ hours', 'two and a half hours'],
  ['pages 10-20', 'pages ten to twenty'],
  ['version 1.2.3', 'version one point two point three'],
  ['192.168.0.1', 'one hundred ninety-two dot one hundred sixty-eight dot zero dot one'],
  ['MP3 player', 'MP three player'],
  ['COVID-19', 'COVID nineteen'],
  ['a 10-year-old', 'a ten year-old'],
  ['1920x1080', 'one thousand nine hundred twenty by one thousand eighty'],
  ['2x faster', 'two times faster'],
  // Roman numerals
  ['Henry VIII', 'Henry the Eighth'],
  ['Louis XIV was king.', 'Louis the Fourteenth was king.'],
  ['World War II', 'World War Two'],
  ['Chapter IV', 'Chapter Four'],
  ['Henry I think so.', 'Henry I think so.'],
  ['Charles I of England', 'Charles the First of England'],
  ['Long live Richard II.', 'Long live Richard the Second.'],
  // Characters, quotes, dashes, white space
  ['\u201CHello\u201D \u2014 she said\u2026', '"Hello", she said...'],
  ['It\u2019s fine', "It's fine"],
  ['1990\u20131995', 'nineteen ninety to nineteen ninety-five'],
  ['wait -- what', 'wait, what'],
  ['I love it \u{1F600} so much!', 'I love it so much!'],
  ['Hello\u0000 wo\u200Brld', 'Hello world'],
  ['  many    spaces\there  ', 'many spaces here'],
  ['', ''],
];

for (const [input, expected] of CASES) {
  test(`normalizeText(${JSON.stringify(input)})`, () => {
    assert.equal(normalizeText(input), expected);
  });
}

test('non-English text only gets clean-up, no number expansion', () => {
  assert.equal(normalizeText('Es kostet  5 €.\u0007', 'de-DE'), 'Es kostet 5 €.');
  assert.equal(normalizeText('Dr. García tiene 3 gatos.', 'es'), 'Dr. García tiene 3 gatos.');
});

test('English variants are recognised by their BCP-47 prefix', () => {
  assert.equal(normalizeText('5 km', 'en-GB'), 'five kilometers');
  assert.equal(normalizeText('5 km', 'EN_us'), 'five kilometers');
  assert.equal(normalizeText('5 km', 'eng-x'), '5 km');
});

test('line breaks survive normalization, blank-line runs collapse', () => {
  assert.equal(normalizeText('Line 1\r\n\r\n\r\nLine 2'), 'Line one\n\nLine two');
});

test('mixed scripts keep the non-Latin words and expand the English numbers', () => {
  assert.equal(normalizeText('He said 你好 to 3 people.'), 'He said 你好 to three people.');
});
