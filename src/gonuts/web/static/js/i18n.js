// Languages: English, Spanish, Italian. Card names and texts come from the server's
// catalogues; the interface's own words from static/i18n/<lang>.json. Either may be missing a
// key: we fall back to English, then to the key itself.
//
// A message names a card as `{card}` (its name), `{card:the}`, `{card:your}`, ... (a form of
// the server catalogue's `card_forms`, chosen by the card's gender, number and first sound:
// "tus Donas del día anterior", "lo Smaltato"; `{card:The}` starts a sentence) or
// `{card:pl=pasan|pasa}` (a choice by agreement). The server words its events and actions the
// same way (gonuts/server/kernel/i18n.py); plurals and lists are CLDR's, here through Intl.

export const LANGUAGES = ["en", "es", "it"];
const STORAGE_KEY = "gonuts.lang";

let lang = "en";
let english = { ui: {}, byCard: {}, forms: {} };
/** @type {Record<string, string>} */
let strings = {};
/** @type {Record<string, string>} */
let fallback = {};
/** @type {Record<string, {name?: string, points?: string, power?: string|null}>} */
let cards = {};
/** @type {Record<string, {name?: string, points?: string, power?: string|null}>} */
let fallbackCards = {};
/** @type {Record<string, Record<string, string>>} form → agreement class selector → pattern */
let forms = {};
/** @type {Record<string, string>} this language's card names → kinds */
let kindByName = {};
const listeners = new Set();

export function currentLanguage() {
  return lang;
}

async function fetchJson(url) {
  try {
    const res = await fetch(url, { headers: { Accept: "application/json" } });
    return res.ok ? await res.json() : {};
  } catch {
    return {};
  }
}

/**
 * Load one language: the server's `/api/i18n/{lang}` (messages, cards, phases) and this
 * front end's own interface strings (`/static/i18n/{lang}.json`), which win on shared keys.
 */
async function loadLanguage(code) {
  const [own, server] = await Promise.all([
    fetchJson(`/static/i18n/${code}.json`),
    fetchJson(`/api/i18n/${code}`),
  ]);
  const prefixed = (prefix, table) =>
    Object.fromEntries(Object.entries(table ?? {}).map(([k, v]) => [`${prefix}.${k}`, v]));
  const phases = prefixed("phase", server.phases);
  const actions = prefixed("action", server.actions);
  return {
    ui: { ...phases, ...actions, ...(server.messages ?? {}), ...own },
    byCard: server.cards ?? {},
    forms: server.card_forms ?? {},
  };
}

/** Load `code` (and English as the fallback) and notify listeners. */
export async function setLanguage(code, { remember = true } = {}) {
  if (!LANGUAGES.includes(code)) code = "en";
  if (remember) localStorage.setItem(STORAGE_KEY, code);
  if (!Object.keys(fallback).length) {
    english = await loadLanguage("en");
    fallback = english.ui;
    fallbackCards = english.byCard;
  }
  const loaded = code === "en" ? english : await loadLanguage(code);
  lang = code;
  strings = loaded.ui;
  cards = loaded.byCard;
  forms = loaded.forms;
  kindByName = Object.fromEntries(Object.entries(cards).map(([kind, c]) => [c.name, kind]));
  document.documentElement.lang = code;
  for (const fn of listeners) fn(code);
}

export function onLanguageChange(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/**
 * Translate `key`, filling `{name}` placeholders from `vars`; `{card:form}` takes a card's
 * form (the value: `cardWords(kind)`, or a card's name in this language).
 */
export function t(key, vars = {}) {
  const template = strings[key] ?? fallback[key] ?? key;
  return template.replace(/\{(\w+)(?::([^{}]*))?\}/g, (m, name, spec) => {
    if (!(name in vars)) return m;
    const value = vars[name];
    if (!spec) return String(value);
    const kind = typeof value === "object" && value?.kind ? value.kind : kindByName[String(value)];
    return kind ? cardForm(kind, spec) : String(value);
  });
}

/** A card for `t`'s placeholders: formats as its name, `{card:the}` as its form. */
export function cardWords(kind) {
  return { kind, toString: () => cardName(kind) };
}

function fits(selector, cls) {
  const parts = new Set(cls.split("."));
  return selector === "other" || selector.split(".").every((p) => parts.has(p));
}

/**
 * `kind`'s name as `spec` asks: a form ("the", "your"; "The" capitalised) or a choice by
 * agreement, "f.pl=scartate|pl=scartati|scartato" (as the server's `agree`).
 */
export function cardForm(kind, spec) {
  const name = cardName(kind);
  const cls = cardField(kind, "class") ?? "sg";
  if (!spec) return name;
  if (spec.includes("|") || spec.includes("=")) {
    for (const choice of spec.split("|")) {
      const at = choice.indexOf("=");
      if (at < 0) return choice;
      if (fits(choice.slice(0, at), cls)) return choice.slice(at + 1);
    }
    return "";
  }
  const key = spec[0].toLowerCase() + spec.slice(1);
  const table = forms[key] ?? english.forms[key] ?? {};
  const hit = Object.entries(table).find(([selector]) => fits(selector, cls));
  const out = (hit ? hit[1] : "{name}").replace("{name}", name);
  return spec[0] === spec[0].toUpperCase() && spec[0] !== spec[0].toLowerCase()
    ? out[0].toUpperCase() + out.slice(1)
    : out;
}

function cardField(kind, field) {
  return cards[kind]?.[field] ?? fallbackCards[kind]?.[field];
}

export function cardName(kind) {
  return cardField(kind, "name") ?? kind.replace(/_/g, " ");
}

export function cardPoints(kind) {
  return cardField(kind, "points") ?? "";
}

export function cardPower(kind) {
  return cardField(kind, "power") ?? null;
}

/**
 * `t` with a count: the key's plural form for `n` in this language (`key.one`, `key.other`,
 * the CLDR categories of `Intl.PluralRules`), the plain key when the catalogue has no form.
 */
export function tn(key, n, vars = {}) {
  const category = new Intl.PluralRules(lang).select(n);
  const forms = [`${key}.${category}`, `${key}.other`];
  const found = forms.find((k) => k in strings || k in fallback);
  return t(found ?? key, { n, ...vars });
}

/** "A, B and C" in this language (`Intl.ListFormat`; a plain join where it is missing). */
export function listJoin(items) {
  const list = items.filter(Boolean).map(String);
  try {
    return new Intl.ListFormat(lang === "en" ? "en-GB" : lang, { type: "conjunction" }).format(list);
  } catch {
    return list.join(", ");
  }
}

const BOT_NAME = /^Bot (\d+) \(([^()]+)\)$/;
const LEVEL_WORDS = {
  easy: "easy", medium: "medium", hard: "hard",
  "fácil": "easy", medio: "medium", "difícil": "hard",
  facile: "easy", difficile: "hard",
};

/** The fixed name a deleted account's seats take (gonuts.server.kernel.i18n.DELETED_PLAYER). */
const DELETED_PLAYER = "Deleted player";

/** A bot's name ("Bot 2 (easy)", stored in its table creator's language) in this language;
 * a deleted account's "Deleted player" in this language. */
export function displayName(name) {
  if (name === DELETED_PLAYER) return t("account.deleted_player");
  const m = typeof name === "string" ? name.match(BOT_NAME) : null;
  const level = m ? LEVEL_WORDS[m[2]] : undefined;
  if (!m || !level) return name;
  return t("bot.name", { n: m[1], level: t(`bot.level.${level}`) });
}
