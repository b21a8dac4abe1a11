// /my-games: every unfinished game you have a seat at (your account's, and the seats this
// browser keeps), the ones waiting for you first, nearest deadline first; and the header's
// "My games" link with a badge counting the games that wait for you, asked again every minute
// and whenever the tab comes back into view (docs/protocol.md "My games").

import { ApiError } from "../api.js";
import { h, mount, s } from "../dom.js";
import { currentLanguage, displayName, listJoin, t, tn } from "../i18n.js";
import { savedSeats, seatFor } from "../session.js";
import { knownAccount } from "./account.js";

const MAX_SAVED = 50; // the server's cap on saved seats per request
const URL_SAFE = /^[A-Za-z0-9_-]{1,64}$/; // what table ids and tokens are (anything else: 422)
const STALE_KEY = "gonuts.mygames.stale"; // saved seats that lead to no unfinished game
const MAX_STALE = 500;
const BADGE_EVERY_MS = 60_000;

function staleTables() {
  try {
    const list = JSON.parse(localStorage.getItem(STALE_KEY) ?? "[]");
    return Array.isArray(list) ? list.filter((id) => typeof id === "string") : [];
  } catch {
    return [];
  }
}

function rememberStale(ids) {
  if (!ids?.length) return;
  const all = [...new Set([...staleTables(), ...ids])].slice(-MAX_STALE);
  localStorage.setItem(STALE_KEY, JSON.stringify(all));
}

/** The listing: `POST /api/my-games` with this browser's saved seats (the account's come with
 * the session cookie). Seats known to lead nowhere are not sent again. */
export async function fetchMyGames() {
  const stale = new Set(staleTables());
  const seats = savedSeats()
    .filter((saved) => !stale.has(saved.table) && URL_SAFE.test(saved.token) && URL_SAFE.test(saved.table)
      && saved.table.length <= 32)
    .slice(0, MAX_SAVED);
  if (!seats.length && !knownAccount()) return { games: [], waiting: 0, stale: [] };
  const res = await fetch(`/api/my-games?lang=${currentLanguage()}`, {
    method: "POST",
    headers: { Accept: "application/json", "Content-Type": "application/json" },
    body: JSON.stringify({ seats }),
    credentials: "same-origin",
  });
  const data = await res.json().catch(() => ({}));
  if (!res.ok) throw new ApiError(res.status, data?.error?.code ?? "error", data?.error?.message ?? res.statusText);
  rememberStale(data.stale);
  return data;
}

// ---- the header's badge ------------------------------------------------------------------------

let waiting = 0;
let timer = null;
let pageOpen = false; // the page asks by itself then, and sets the count

function paintBadges() {
  for (const link of document.querySelectorAll("[data-my-games-link]")) {
    const badge = link.querySelector(".games-badge");
    badge.textContent = String(waiting);
    badge.classList.toggle("hidden", waiting === 0);
    // the link is read "My games, 3 games waiting for you" (its visible words come first)
    badge.setAttribute("aria-label", tn("mygames.badge", waiting));
  }
}

/** Ask for the count again (the page also sets it when it lists the games). */
export async function refreshBadge() {
  try {
    setWaiting((await fetchMyGames()).waiting);
  } catch {
    // keep the last count: a failed poll says nothing new
  }
}

function setWaiting(n) {
  waiting = n;
  paintBadges();
}

/** The header's "My games" link (its badge shows the last count heard). */
export function myGamesLink() {
  // on a phone only the icon and the badge show (first in the scrolling strip): the words stay
  // for screen readers
  const icon = s("svg", { class: "my-games-icon", viewBox: "0 0 24 24", width: 22, height: 22, "aria-hidden": "true" },
    s("rect", { x: 3, y: 6, width: 11, height: 15, rx: 2, fill: "none", stroke: "currentColor", "stroke-width": 2 }),
    s("path", { d: "M8 3h11a2 2 0 0 1 2 2v13", fill: "none", stroke: "currentColor", "stroke-width": 2 }));
  const link = h("a", { href: "/my-games", "data-link": "", "data-testid": "my-games-link", "data-my-games-link": "", class: "my-games-link" },
    icon, h("span", { class: "my-games-label" }, t("mygames.title")),
    h("span", { class: "games-badge hidden", "data-testid": "my-games-badge", role: "img" }, "0"));
  queueMicrotask(paintBadges);
  return link;
}

/** Poll the badge's count every minute and when the tab becomes visible (once per page). */
export function startBadge() {
  if (timer !== null) return;
  const due = () => document.visibilityState === "visible" && !pageOpen;
  if (!pageOpen) refreshBadge();
  timer = setInterval(() => due() && refreshBadge(), BADGE_EVERY_MS);
  document.addEventListener("visibilitychange", () => due() && refreshBadge());
}

// ---- the page ----------------------------------------------------------------------------------

/** The reader's own locale when it is of the page's language (en-GB's dates for a British
 * reader of the English page), else the language itself. */
function readerLocale() {
  const lang = currentLanguage();
  const theirs = navigator.languages?.length ? navigator.languages : [navigator.language];
  return theirs.find((l) => l && l.toLowerCase().split("-")[0] === lang) ?? lang;
}

/** "1 day", "12 hours", "45 seconds": the clock's length in this language. */
function duration(seconds) {
  const [unit, size] = seconds % 86400 === 0 ? ["day", 86400]
    : seconds % 3600 === 0 ? ["hour", 3600]
    : seconds % 60 === 0 ? ["minute", 60] : ["second", 1];
  return new Intl.NumberFormat(readerLocale(), { style: "unit", unit, unitDisplay: "long" }).format(seconds / size);
}

/** "in 3 hours", "in 5 minutes" (Intl.RelativeTimeFormat), from now to `when`. */
export function relative(when, now = Date.now()) {
  const seconds = (when - now) / 1000;
  const fmt = new Intl.RelativeTimeFormat(readerLocale(), { numeric: "auto" });
  const steps = [["day", 86400], ["hour", 3600], ["minute", 60]];
  for (const [unit, size] of steps) {
    if (Math.abs(seconds) >= size) return fmt.format(Math.round(seconds / size), unit);
  }
  return fmt.format(Math.round(seconds), "second");
}

function deadlineText(iso) {
  const when = new Date(iso);
  const absolute = new Intl.DateTimeFormat(readerLocale(), {
    weekday: "short", day: "numeric", month: "short", hour: "numeric", minute: "2-digit",
  }).format(when);
  return t("mygames.deadline", { time: absolute, relative: relative(when.getTime()) });
}

function statusOf(game) {
  if (game.status === "open") return ["filling", t("mygames.filling")];
  return game.waiting ? ["yours", t("mygames.your_turn")] : ["theirs", t("mygames.waiting_others")];
}

function gameCard(game) {
  const [kind, label] = statusOf(game);
  const here = seatFor(game.table) !== null;
  const names = game.opponents.map(displayName);
  const facts = [
    game.status === "playing" ? t("table.round", { n: game.round }) : null,
    game.clock ? t("mygames.per_move", { time: duration(game.clock) }) : t("clock.none"),
    game.turn_based ? t("mygames.turn_based") : null,
  ].filter(Boolean);
  return h("li", { class: `my-game ${kind}`, "data-testid": "my-game", dataset: { table: game.table, waiting: String(game.waiting) } },
    h("div", { class: "my-game-head" },
      h("span", { class: `my-game-status ${kind}` }, label),
      game.deadline ? h("time", { datetime: game.deadline, class: "my-game-deadline" }, deadlineText(game.deadline)) : null),
    h("p", { class: "my-game-players" },
      [names.length ? t("mygames.against", { names: listJoin(names) }) : null,
        game.free_seats ? tn("mygames.free_seats", game.free_seats) : null].filter(Boolean).join(" · ")),
    h("p", { class: "my-game-facts muted" }, facts.join(" · ")),
    h("div", { class: "my-game-go" },
      h("a", { class: "button", href: game.url, "data-link": "", "data-testid": "resume" },
        here ? t("mygames.resume") : t("mygames.open")),
      here ? null : h("span", { class: "muted my-game-note" }, t("mygames.other_device"))));
}

export class MyGamesPage {
  /** @param {HTMLElement} root @param {(path: string) => void} navigate */
  constructor(root, navigate) {
    this.root = root;
    this.navigate = navigate;
    this.timer = null;
  }

  start() {
    pageOpen = true;
    this.body = h("div", { "data-testid": "my-games" }, h("p", { class: "muted" }, t("app.loading")));
    mount(this.root,
      h("section", { class: "panel my-games", "aria-labelledby": "my-games-title" },
        h("h2", { id: "my-games-title" }, t("mygames.title")),
        h("p", { class: "muted" }, t("mygames.about")),
        this.body));
    this.load();
    this.timer = setInterval(() => document.visibilityState === "visible" && this.load(), BADGE_EVERY_MS);
    this.onVisible = () => document.visibilityState === "visible" && this.load();
    document.addEventListener("visibilitychange", this.onVisible);
  }

  stop() {
    pageOpen = false;
    clearInterval(this.timer);
    document.removeEventListener("visibilitychange", this.onVisible);
  }

  async load() {
    let data;
    try {
      data = await fetchMyGames();
    } catch (e) {
      mount(this.body, h("div", { class: "error-banner" }, e.message));
      return;
    }
    setWaiting(data.waiting);
    if (!data.games.length) {
      mount(this.body,
        h("div", { class: "my-games-empty", "data-testid": "my-games-empty" },
          h("p", {}, t("mygames.empty")),
          h("a", { class: "button", href: "/", "data-link": "" }, t("mygames.to_lobby"))));
      return;
    }
    mount(this.body, h("ol", { class: "my-games-list" }, data.games.map(gameCard)));
  }
}
