// The page's words (i18n.js): plural forms by Intl.PluralRules, the bots' names in the
// page's language, jokers as each language names them, and plays written main part first
// and spoken for a screen reader. Run: node --test tests/web/i18n.test.mjs
// (tests/web/test_js_state.py runs it).
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  LANGS,
  STRINGS,
  jokerFace,
  langTag,
  shownName,
  spokenPlay,
  translator,
  writtenPlay,
} from "../../server/web/static/js/i18n.js";
import { Kind, legalPlays, parsePlay } from "../../server/web/static/js/rules.js";

const en = translator("en");
const zh = translator("zh");
const de = translator("de");
const id = translator("id");

test("counts take the language's plural form: 1 bomb, 2 bombs; 1 Karte, 3 Karten", () => {
  assert.equal(en("bombs", { n: 1 }), "1 bomb");
  assert.equal(en("bombs", { n: 2 }), "2 bombs");
  assert.equal(en("cards_left", { n: 1 }), "1 card");
  assert.equal(en("cards_left", { n: 17 }), "17 cards");
  assert.equal(de("cards_left", { n: 1 }), "1 Karte");
  assert.equal(de("bombs", { n: 3 }), "3 Bomben");
  assert.equal(zh("bombs", { n: 1 }), "1 个炸弹");
  assert.equal(id("cards_left", { n: 2 }), "2 kartu");
  for (const lang of LANGS) {
    const strings = /** @type {Record<string, string>} */ (STRINGS[lang]);
    assert.ok(!Object.values(strings).some((text) => text.includes("(s)")), `${lang}: a "(s)" plural`);
    const bases = Object.keys(strings).filter((k) => k.endsWith("_other")).map((k) => k.slice(0, -6));
    assert.ok(bases.length >= 2, lang);
    const categories = new Intl.PluralRules(langTag(lang)).resolvedOptions().pluralCategories;
    for (const base of bases) {
      assert.ok(!(base in strings), `${lang}: ${base} has plural forms and a plain one`);
      for (const c of categories) {
        if (c !== "other") assert.ok(`${base}_${c}` in strings, `${lang}: ${base}_${c}`);
      }
    }
  }
});

test("bots get their names in the page's language; people keep theirs", () => {
  assert.equal(shownName(en, "normal bot 1"), "normal bot 1");
  assert.equal(shownName(zh, "normal bot 1"), "普通机器人1");
  assert.equal(shownName(zh, "strong bot 2 (2)"), "高手机器人2 (2)");
  assert.equal(shownName(de, "easy bot 0"), "Bot 0 (leicht)");
  assert.equal(shownName(id, "easy bot 2"), "bot mudah 2");
  assert.equal(shownName(zh, "ann"), "ann");
  assert.equal(shownName(zh, "my normal bot 1"), "my normal bot 1");
  assert.equal(translator("de")("default_name", { n: 123 }), "Spieler 123");
});

test("the table's keys are one letter each, distinct, in the page's language", () => {
  for (const lang of LANGS) {
    const t = translator(lang);
    const keys = ["play", "pass", "hint"].map((id) => t(`key_${id}`));
    assert.ok(keys.every((k) => /^[A-Z]$/.test(k)), `${lang}: ${keys}`);
    assert.equal(new Set(keys).size, 3, lang);
    const help = t("keys_play", { play: keys[0], pass: keys[1], hint: keys[2] });
    assert.ok(keys.every((k) => help.includes(k)) && !help.includes("{"), help);
  }
  assert.equal(de("key_play"), "S"); // Spielen
  assert.equal(de("key_pass"), "P"); // Passen
});

test("the header names the game once in Chinese: 斗地主, not 斗地主 斗地主", () => {
  assert.equal(zh("title_latin"), "");
  assert.equal(en("title_latin"), "Dou Dizhu");
});

test("jokers as players of each language name them, never JOKER in Chinese", () => {
  assert.equal(jokerFace(zh, 52), "小王");
  assert.equal(jokerFace(zh, 53), "大王");
  assert.equal(jokerFace(en, 53), "JOKER");
  assert.equal(writtenPlay(zh, "zh", parsePlay("BJ")), "单张 大王");
  assert.equal(writtenPlay(de, "de", parsePlay("SJ")), "Einzelkarte 单张 kleiner Joker");
  assert.equal(writtenPlay(zh, "zh", parsePlay("SJ BJ")), "王炸");
});

test("plays are written main part first: Q Q Q 3, not 3 Q Q Q", () => {
  assert.equal(writtenPlay(en, "en", parsePlay("3 QQQ")), "Triple + single 三带一 Q Q Q 3");
  assert.equal(writtenPlay(zh, "zh", parsePlay("33 44 5555")), "四带两对 5 5 5 5 3 3 4 4");
  assert.equal(writtenPlay(en, "en", parsePlay("3-7")), "Straight 顺子 3 4 5 6 7");
  assert.equal(writtenPlay(en, "en", parsePlay("BJ 999")), "Triple + single 三带一 9 9 9 big joker");
});

test("plays are spoken with their cards: pair of eights, 对8, Paar Achten", () => {
  assert.equal(spokenPlay(en, "en", parsePlay("88")), "pair of eights");
  assert.equal(spokenPlay(zh, "zh", parsePlay("88")), "对8");
  assert.equal(spokenPlay(de, "de", parsePlay("88")), "Paar Achten");
  assert.equal(spokenPlay(id, "id", parsePlay("88")), "pasang delapan");
  assert.equal(spokenPlay(en, "en", parsePlay("K")), "king");
  assert.equal(spokenPlay(en, "en", parsePlay("BJ")), "big joker");
  assert.equal(spokenPlay(en, "en", parsePlay("3 QQQ")), "three queens with three");
  assert.equal(spokenPlay(en, "en", parsePlay("66 QQQ")), "three queens with a pair of sixes");
  assert.equal(spokenPlay(en, "en", parsePlay("3-7")), "straight from three to seven");
  assert.equal(spokenPlay(en, "en", parsePlay("55 66 77")), "pairs from five to seven");
  assert.equal(spokenPlay(en, "en", parsePlay("333 444 5 9")), "airplane from three to four with five and nine");
  assert.equal(spokenPlay(en, "en", parsePlay("5555 33 44")), "four fives with pairs of threes and fours");
  assert.equal(spokenPlay(en, "en", parsePlay("5555 33")), "four fives with three and three");
  assert.equal(spokenPlay(en, "en", parsePlay("2222")), "bomb, four twos");
  assert.equal(spokenPlay(zh, "zh", parsePlay("SJ BJ")), "王炸");
  assert.equal(spokenPlay(zh, "zh", parsePlay("3-7")), "顺子，3到7");
});

test("every play there is can be written and spoken in every language, with no gap", () => {
  const plays = legalPlays([3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 6, 6, 6, 7, 8, 9, 16, 17]);
  const kinds = new Set(plays.map((p) => p.kind));
  assert.equal(kinds.size, Object.values(Kind).length);
  for (const lang of LANGS) {
    const t = translator(lang);
    for (const play of plays) {
      for (const text of [writtenPlay(t, lang, play), spokenPlay(t, lang, play)]) {
        assert.ok(text && !/[{}]|undefined|NaN|say_|rank_/.test(text), `${lang} ${play.kind}: ${text}`);
      }
    }
  }
});
