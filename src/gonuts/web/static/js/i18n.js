// Languages: English, Spanish, Italian. Card names and texts come from the server's
// catalogues; the interface's own words from static/i18n/<lang>.json. Either may be missing a
// key: we fall back to English, then to the key itself.

export const LANGUAGES = ["en", "es", "it"];
const STORAGE_KEY = "gonuts.lang";

let lang = "en";
/** @type {Record<string, string>} */
let strings = {};
/** @type {Record<string, string>} */
let fallback = {};
/** @type {Record<string, {name?: string, points?: string, power?: string|null}>} */
let cards = {};
/** @type {Record<string, {name?: string, points?: string, power?: string|null}>} */
let fallbackCards = {};
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
  const phases = Object.fromEntries(
    Object.entries(server.phases ?? {}).map(([k, v]) => [`phase.${k}`, v]),
  );
  return { ui: { ...phases, ...(server.messages ?? {}), ...own }, byCard: server.cards ?? {} };
}

/** Load `code` (and English as the fallback) and notify listeners. */
export async function setLanguage(code, { remember = true } = {}) {
  if (!LANGUAGES.includes(code)) code = "en";
  if (remember) localStorage.setItem(STORAGE_KEY, code);
  if (!Object.keys(fallback).length) {
    const en = await loadLanguage("en");
    fallback = en.ui;
    fallbackCards = en.byCard;
  }
  const loaded = code === "en" ? { ui: fallback, byCard: fallbackCards } : await loadLanguage(code);
  lang = code;
  strings = loaded.ui;
  cards = loaded.byCard;
  document.documentElement.lang = code;
  for (const fn of listeners) fn(code);
}

export function onLanguageChange(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/** Translate `key`, filling `{name}` placeholders from `vars`. */
export function t(key, vars = {}) {
  const template = strings[key] ?? fallback[key] ?? key;
  return template.replace(/\{(\w+)\}/g, (m, name) => (name in vars ? String(vars[name]) : m));
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
