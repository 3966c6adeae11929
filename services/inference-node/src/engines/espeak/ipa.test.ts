import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ipaToEspeak } from './ipa.js';

describe('ipaToEspeak', () => {
  it('maps English IPA with stress and length marks to espeak mnemonics', () => {
    assert.equal(ipaToEspeak('təˈmɑːtoʊ'), "t@'mA:toU");
    assert.equal(ipaToEspeak('ˈθɪŋk ˌðæt'), "'TINk ,Dat");
    assert.equal(ipaToEspeak('dʒˈʌdʒ tʃˈɜːtʃ'), "dZ'VdZ tS'3:tS");
    assert.equal(ipaToEspeak('kˈɑːɹ'), "k'A@");
  });

  it('drops symbols outside the table', () => {
    assert.equal(ipaToEspeak('a\u{1F600}b'), 'ab');
  });
});
