// The turn clock in the browser (issue 11; docs/protocol.md "Turn clock"): a countdown next to
// each seat that must decide and a big one for you (the last 10 s stand out), the replacement
// countdown of an absent player, "a bot is playing for you" with an "I'm back" button, a notice
// when time runs out, and the list of what was played for you while you were away.
//
// The server sends seconds left (state.deadlines, and each absent seat's replace_in in the
// table summary); they become local deadlines when they arrive and one ticker counts every
// countdown element down from them, so a redraw of the table never resets a countdown.
// A turn-based table (a clock of an hour or more, issue 27) has absolute deadlines as well
// (state.deadlines_at, ISO UTC): those are shown as a date and time ("by Sat 14:05"), not
// as a countdown of days.

/** Clocks from this many seconds on are turn-based (play/clock.py TURN_BASED). */
export const TURN_BASED = 3600;
/** The turn-based clocks the table form offers: 1 h, 8 h, 1 day, 3 days, 7 days. */
export const TURN_CLOCKS = [3600, 8 * 3600, 86400, 3 * 86400, 7 * 86400];

/** "8 h" or "3 days" per decision, in the page's language. */
export function turnLimit(seconds) {
  if (seconds % 86400 === 0) {
    const n = seconds / 86400;
    return n === 1 ? t("clock.one_day") : t("clock.days", { n });
  }
  return t("clock.hours", { n: Math.round(seconds / 3600) });
}

/** An absolute deadline as the reader's weekday and time ("Sat 14:05"), with the date when
 * it is a week or more away. */
export function deadlineText(iso, now = Date.now()) {
  const at = new Date(iso);
  const far = at.getTime() - now >= 6.5 * 86400 * 1000;
  const opts = far
    ? { weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit" }
    : { weekday: "short", hour: "2-digit", minute: "2-digit" };
  return new Intl.DateTimeFormat(document.documentElement.lang || undefined, opts).format(at);
}

import { h } from "./dom.js";
import { onLanguageChange, t } from "./i18n.js";
import { attentionControls, setMyTurn } from "./attention.js";

const URGENT = 10;
const NOTICE_MS = 8000;

function deadlinesFrom(secondsBySeat) {
  const now = performance.now();
  const out = {};
  for (const [seat, left] of Object.entries(secondsBySeat ?? {})) {
    if (typeof left === "number") out[seat] = now + left * 1000;
  }
  return out;
}

export class TurnClock {
  /** @param {{send: (message: object) => boolean|void}} options */
  constructor(options) {
    this.send = options.send;
    this.seat = null;
    this.limit = null; // the table's seconds per decision (null: no clock)
    this.deadlines = {}; // seat -> performance.now() ms
    this.deadlinesAt = {}; // seat -> ISO UTC time (turn-based tables only)
    this.replaceAt = {}; // seat -> performance.now() ms
    this.benched = false; // a bot plays my seat (I let the time run out three times)
    this.area = h("div", { class: "clock-notices", role: "status", "aria-live": "polite", "data-testid": "clock-notices" });
    document.body.append(this.area);
    this.timer = setInterval(() => this.tick(), 250);
    this.unlisten = onLanguageChange(() => this.benched && this.#bench(true));
  }

  stop() {
    clearInterval(this.timer);
    this.unlisten();
    this.area.remove();
    setMyTurn(false);
  }

  /** Every socket message passes here first (tablepage.js). */
  onMessage(msg) {
    switch (msg.type) {
      case "welcome":
        this.seat = msg.spectator ? null : msg.seat;
        this.#summary(msg.table);
        break;
      case "table":
        this.#summary(msg.table);
        break;
      case "state":
        this.deadlines = deadlinesFrom(msg.deadlines);
        this.deadlinesAt = msg.deadlines_at ?? {};
        if (this.seat !== null && this.seat !== undefined) {
          setMyTurn(!msg.view.over && (msg.view.legal ?? []).length > 0);
        }
        this.tick();
        break;
      case "timeout":
        this.#notice(msg.text, msg.seat === this.seat ? "mine" : "");
        break;
      case "away":
        this.#away(msg);
        break;
      default:
        break;
    }
  }

  #summary(table) {
    if (!table) return;
    this.limit = table.clock ?? null;
    const seats = table.seats ?? [];
    this.replaceAt = deadlinesFrom(Object.fromEntries(seats.map((s) => [s.seat, s.replace_in])));
    const me = seats.find((s) => s.seat === this.seat);
    const benched = Boolean(me && me.kind === "human" && me.bot_playing && table.status === "playing");
    if (benched !== this.benched) this.#bench(benched);
    this.tick();
  }

  /** "A bot is playing for you", with the way back: kept out of the table's redraws (the bot
   * moves often), so the button stays put under the pointer. */
  #bench(on) {
    this.benched = on;
    this.area.querySelectorAll(".benched").forEach((old) => old.remove());
    if (!on) return;
    this.area.prepend(h("div", { class: "my-clock benched", "data-testid": "benched" },
      t("clock.bot_playing_you"), " ",
      h("button", {
        type: "button", "data-testid": "im-back",
        onclick: () => this.send({ type: "back" }),
      }, t("clock.back"))));
  }

  /** The table's clock and the "your turn" switches, for the table's header. */
  controls(view) {
    const seated = view.seat !== null && view.seat !== undefined;
    return [
      this.limit ? h("span", { class: this.limit >= TURN_BASED ? "pill turn-based" : "pill", "data-testid": "clock-limit" },
        this.limit >= TURN_BASED ? t("clock.pill_turn", { limit: turnLimit(this.limit) }) : t("clock.pill", { n: this.limit })) : null,
      seated ? attentionControls() : null,
    ];
  }

  /** My own countdown (big; empty while I have none). */
  mine(view) {
    const me = view.seat;
    if (me === null || me === undefined || this.benched) return null;
    return this.#paint(h("div", { class: "my-clock", "data-testid": "my-clock", dataset: { clockSeat: me, clockKind: "mine" } }));
  }

  /** A seat's countdown (empty while it has none). */
  badge(seat) {
    return this.#paint(h("span", { class: "clock-badge", "data-testid": `clock-${seat}`, dataset: { clockSeat: seat, clockKind: "turn" } }));
  }

  /** Count every countdown on the page down (four times a second). */
  tick() {
    const now = performance.now();
    for (const el of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll("[data-clock-seat]"))) {
      this.#paint(el, now);
    }
  }

  #paint(el, now = performance.now()) {
    const seat = el.dataset.clockSeat;
    const kind = el.dataset.clockKind;
    let at = this.deadlines[seat];
    let key = kind === "mine" ? "clock.your_time" : "clock.seconds";
    if (at === undefined && kind === "turn" && this.replaceAt[seat] !== undefined) {
      at = this.replaceAt[seat];
      key = "clock.replace_in";
    }
    if (at === undefined) {
      if (el.textContent) el.textContent = "";
      el.classList.add("hidden");
      return el;
    }
    const iso = this.deadlinesAt[seat];
    if (iso && key !== "clock.replace_in") { // turn-based: a date and time, not a countdown
      const when = deadlineText(iso);
      const text = t(kind === "mine" ? "clock.your_deadline" : "clock.by", { when });
      if (el.textContent !== text) el.textContent = text;
      el.classList.remove("hidden", "urgent");
      el.classList.add("turn-based");
      return el;
    }
    const left = Math.max(0, Math.ceil((at - now) / 1000));
    const text = t(key, { n: left });
    if (el.textContent !== text) el.textContent = text;
    el.classList.remove("hidden");
    el.classList.toggle("urgent", key !== "clock.replace_in" && left <= URGENT);
    return el;
  }

  #notice(text, cls = "") {
    const note = h("div", { class: `clock-notice ${cls}`.trim() }, text);
    this.area.append(note);
    setTimeout(() => note.remove(), NOTICE_MS);
  }

  /** "While you were away": what was decided for me, until I close it. */
  #away(msg) {
    const panel = h("section", { class: "away-notice panel", "data-testid": "away-notice", "aria-label": t("clock.away_title") },
      h("h3", {}, t("clock.away_title")),
      h("p", {}, msg.text),
      h("ol", {}, (msg.decisions ?? []).map((d) =>
        h("li", {}, d.label, " ", h("span", { class: "muted" }, `(${t(d.by === "clock" ? "clock.by_clock" : "clock.by_bot")})`)))),
      h("button", { type: "button", "data-testid": "away-ok", onclick: () => panel.remove() }, t("clock.close")));
    this.area.querySelectorAll(".away-notice").forEach((old) => old.remove());
    this.area.append(panel);
  }
}

/** A clock choice for the table form: automatic, none, or seconds per decision. */
export function clockChoice() {
  const select = h("select", { id: "clock-choice", "data-testid": "clock-choice" },
    h("option", { value: "auto" }, t("clock.auto")),
    h("option", { value: "none" }, t("clock.none")),
    [30, 60, 120, 300].map((n) => h("option", { value: String(n) }, t("clock.per_decision", { n }))),
    h("optgroup", { label: t("clock.turn_group") },
      TURN_CLOCKS.map((n) => h("option", { value: String(n) }, turnLimit(n)))));
  const field = h("label", { for: "clock-choice", class: "clock-choice" }, t("clock.label"), " ", select);
  return {
    element: field,
    /** The body fields for POST /api/tables: {} (the server's default), {clock: null} or {clock: n}. */
    value() {
      if (select.value === "auto") return {};
      if (select.value === "none") return { clock: null };
      return { clock: Number(select.value) };
    },
  };
}
