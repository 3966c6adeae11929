/**
 * The lexicon's IPA on espeak-ng: the symbol table of `@tts/common` holds every symbol espeak-ng's
 * own IPA output uses (several hundred English words, sentences of other languages), and lexicon
 * entries are said inline, within the sentence's one engine call.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { invalidIpaSymbol } from '@tts/common';
import { rms } from '../../audio/dsp.js';
import type { PcmAudio } from '../../audio/pcm.js';
import { spectralDistance } from '../../audio/spectral-distance.js';
import type { EngineInput } from '../engine.js';
import { createEspeakEngine, createEspeakPhonemizer, type EspeakEngine, type EspeakPhonemizer } from './index.js';

/** English words covering every vowel, diphthong, consonant and cluster espeak-ng writes for en-us and en-gb. */
const ENGLISH = `
a about above accept across action actually add afraid after again against age ago agree air all allow almost alone along
already also although always among amount and anger animal another answer any anyone anything appear apple april area arm
around arrive art article as ask at attack aunt autumn avoid awake away baby back bad bag ball bank bar base bath bathe beach
bear beard beat beauty because bed beer before begin behind believe bell belt best better between bicycle big bird birth bit
bite black blood blue board boat body boil bone book boot border born both bottle bottom bought box boy brain bread break
breath breathe bridge bright bring brother brown build burn bush business busy but butter buy cake call calm camera can cap
car card care carry cat catch cause ceiling centre chair chance change cheap check cheese chemistry chicken child choice
choose church circle city class clean clear climb clock close cloth cloud coast coat coffee cold colour come common cook cool
copy corner cost cough could count country courage cousin cow cream create crowd cry culture cup cure curious cut damage
dance danger dark daughter day dead deal dear death decide deep degree depend desert design desk detail die difference dinner
dirty doctor dog door doubt down draw dream dress drink drive drop dry duck during duty each ear early earth east easy eat
edge education effect egg eight either elephant else empty end enemy energy engine enjoy enough enter equal error escape
evening event ever every exact example except excite exercise expect expensive experience explain eye face fact fail fair
fall family famous far farm fast father fault fear feather feel few field fight figure fill film find fine finger finish
fire first fish five flag flat floor flower fly follow food foot for force foreign forest forget fork form fortune four
free fresh friend frog from front fruit full fun future game garage garden gas gate general gentle get gift girl give
glass go goal gold good government grass great green grey ground group grow guard guess guitar gun hair half hall hand
happen happy hard hat hate have he head health hear heart heat heavy hello help here high hill history hit hold hole
holiday home honest hope horse hospital hot hotel hour house how huge human hungry hurry husband ice idea if ill
important improve inch include industry information inside instead interest iron island issue it jacket job join joke
journey judge juice jump just keep key kill kind king kitchen knee knife knock know lady lake land language large last late
laugh law lazy lead leaf learn leather leave left leg leisure less letter level library lie life light like lion lip list
listen little live lock long look lose loud love low luck lunch machine mail main make man many map market marriage match
matter measure meat meet member memory metal middle milk mind minute mirror miss model moment money month moon morning
mother mountain mouse mouth move much museum music must nation nature near neck need neither nephew never new news next
nice night nine noise north nose nothing notice now number nurse nut object ocean offer office often oil old onion only
open orange order other our out oven over own page pain paint pair paper parent park part party pass past path pay peace
pen people pepper perhaps person phone piano picture piece pink pipe place plan plant plastic play please pleasure pocket
poem point poison police polite pool poor popular position potato pour power present pretty price prison problem produce
public pull purple push put quality quarter queen question quick quiet quite rabbit race radio rain raise rather reach
read ready real reason red remember rent repeat rest rice rich ride right ring rise river road rock roof room root rose
round rule run sad safe salt same sand save say school science score sea season seat second see sell send sense serious
seven shadow shake shape share sharp she sheep shirt shoe shop short should shout show shut sick side sign silver simple
sing sister sit six size skill skin sky sleep slow small smell smile smoke snow so soap soft soldier some son song soon
sorry sound soup south space speak special speed spell spend spoon sport spring square stage stairs star start station
stay steal step stick still stone stop store storm story strange street strong student study sugar summer sun sure
surprise sweet swim table tail take talk tall taste tea teach team tell ten thank that the theatre then there these thick
thin thing think third thirty this those though thought thousand three throat through throw thumb thursday ticket tidy
tie tiger time tired today toe together tomato tomorrow tongue tonight tooth top touch tour towel tower town toy train
travel tree trouble true trust truth try tuesday turn twelve twenty two umbrella uncle under understand unit until up use
usual valley value vegetable very view village violin visit voice vote wait walk wall want war warm wash watch water wave
way we weak wear weather wedding week weight well west wet what wheel when where which while white who whole why wide
wife wild win wind window wine winter wish with without woman wonder wood wool word work world worry write wrong yard year
yellow yes yesterday yet you young youth zero zoo
`.trim().split(/\s+/);

/** Sentences of other languages espeak-ng speaks (tones, nasal vowels, clicks of none, retroflexes, palatals...). */
const OTHER_LANGUAGES: readonly (readonly [voice: string, text: string])[] = [
  ['de', 'Guten Tag, ich möchte zwei Brötchen und einen Kaffee mit Milch. Das Mädchen läuft über die Straße.'],
  ['fr', 'Bonjour, je voudrais un croissant et un café au lait. Les enfants jouent dans le jardin.'],
  ['es', 'Buenos días, quiero un zumo de naranja y dos churros. El perro corre por la calle.'],
  ['it', 'Buongiorno, vorrei un cappuccino e una brioche. Gli gnocchi sono buonissimi.'],
  ['pt', 'Bom dia, eu queria um pão de queijo e um café. Os irmãos estão em São Paulo.'],
  ['nl', 'Goedemorgen, ik wil graag een kopje koffie en een broodje kaas.'],
  ['sv', 'God morgon, jag skulle vilja ha en kopp kaffe och en kanelbulle.'],
  ['pl', 'Dzień dobry, poproszę kawę i szczęśliwego chrząszcza.'],
  ['ru', 'Доброе утро, я хотел бы чашку чая и кусок хлеба.'],
  ['cs', 'Dobrý den, chtěl bych šálek kávy a řízek.'],
  ['cmn', '你好，我想要一杯茶。'],
  ['vi', 'Xin chào, tôi muốn một ly cà phê sữa đá.'],
  ['hi', 'नमस्ते, मुझे एक कप चाय चाहिए।'],
  ['ar', 'صباح الخير، أريد فنجان قهوة.'],
  ['tr', 'Günaydın, bir bardak çay istiyorum.'],
  ['fi', 'Hyvää huomenta, haluaisin kupin kahvia.'],
  ['el', 'Καλημέρα, θα ήθελα ένα φλιτζάνι καφέ.'],
  ['hu', 'Jó reggelt, kérek egy csésze kávét.'],
];

describe('lexicon IPA and espeak-ng', () => {
  let phonemizer: EspeakPhonemizer;
  let engine: EspeakEngine;

  before(async () => {
    phonemizer = createEspeakPhonemizer();
    engine = createEspeakEngine();
    await engine.load();
  });

  after(async () => {
    await phonemizer.close();
    await engine.close();
  });

  it(`accepts every symbol of espeak-ng's IPA for ${ENGLISH.length} English words (en-us and en-gb)`, async () => {
    assert.ok(ENGLISH.length >= 300);
    const outside = new Map<string, string>();
    for (const voice of ['en-us', 'en-gb']) {
      for (const word of ENGLISH) {
        for (const ipa of await phonemizer.phonemize(word, voice)) {
          const bad = invalidIpaSymbol(ipa.replace(/[,.;:!?]/g, ''));
          if (bad !== undefined) outside.set(bad.symbol, `${voice} ${word}: ${ipa}`);
        }
      }
    }
    assert.deepEqual(Object.fromEntries(outside), {});
  });

  it('accepts every symbol of espeak-ng\'s IPA for sentences of other languages', async () => {
    const outside = new Map<string, string>();
    for (const [voice, text] of OTHER_LANGUAGES) {
      for (const ipa of await phonemizer.phonemize(text, voice)) {
        // Without its language-switch markers ("(en)"), which are no IPA.
        const bad = invalidIpaSymbol(ipa.replace(/\([a-z-]+\)/g, '').replace(/[,.;:!?]/g, ''));
        if (bad !== undefined) outside.set(`${bad.symbol} (U+${bad.symbol.codePointAt(0)!.toString(16)})`, `${voice}: ${ipa}`);
      }
    }
    assert.deepEqual(Object.fromEntries(outside), {});
  });

  /** Renders one input on en-us. */
  async function render(input: Omit<EngineInput, 'voice' | 'speed'>): Promise<{ audio: PcmAudio; words: readonly string[] }> {
    const [out] = await engine.synthesize([{ ...input, voice: 'espeak:en-us', speed: 1 }]);
    assert.ok(out && out.audio.samples.length > 0 && rms(out.audio.samples) > 0.01);
    return { audio: out.audio, words: (out.words ?? []).map((w) => w.word) };
  }

  it('says a lexicon entry\'s IPA inline in the sentence: the two tomatoes sound different, the words around are read as text', async () => {
    const text = 'I say tomato today.';
    const parts = (ipa: string): EngineInput['parts'] => [{ text: 'I say ' }, { text: 'tomato', ipa }, { text: ' today.' }];
    const british = await render({ text, parts: parts('təˈmɑːtoʊ') });
    const britishAgain = await render({ text, parts: parts('təˈmɑːtoʊ') });
    const american = await render({ text, parts: parts('təˈmeɪtoʊ') });
    // espeak-ng never renders one input to the same samples twice (its pitch flutter runs on): compare spectra.
    const same = spectralDistance(british.audio, britishAgain.audio);
    const different = spectralDistance(british.audio, american.audio);
    assert.ok(different > 1.8 * same, `British vs American ${different.toFixed(3)}, British twice ${same.toFixed(3)}`);
    // One call, one sentence: the entry is named by its word in the word timings (espeak-ng's word
    // events sometimes skip a first "I", whatever the input).
    assert.deepEqual(british.words.slice(-3), ['say', 'tomato', 'today']);
    const phrase = await render({ text: 'I love New York.', parts: [{ text: 'I love ' }, { text: 'New York', ipa: 'nuː jˈɔːɹk' }, { text: '.' }] });
    assert.deepEqual(phrase.words.slice(-2), ['love', 'New York']);
  });

  it('reads a "[[" of the text itself as text, never as phonemes', async () => {
    const injected = await render({ text: "[[h@l'oU]] there", parts: [{ text: "[[h@l'oU]] there" }] });
    const asText = await render({ text: "[ [h@l'oU]] there" });
    const asPhonemes = await render({ text: 'hello there', parts: [{ text: 'hello', ipa: 'həlˈoʊ' }, { text: ' there' }] });
    const [n, text, phonemes] = [injected, asText, asPhonemes].map((r) => r.audio.samples.length) as [number, number, number];
    assert.ok(Math.abs(n - text) < 0.02 * text, `${n} samples injected, ${text} read as text`);
    assert.ok(n > 1.5 * phonemes, `${n} samples injected, ${phonemes} said as phonemes`);
  });
});
