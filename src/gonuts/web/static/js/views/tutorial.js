// The first-game guide (issue 11 item 5): explanation bubbles over a real game against the
// scripted coach (gonuts/server/tutorial.py). The player makes every decision; the guide only
// explains, keyed to what the game shows: the phase, the round, the events. It suggests the
// cards the server's stacked deck puts in the row (SUGGESTED = tutorial.py's SUGGESTED) and
// explains what did happen when the player chooses otherwise.

import { api } from "../api.js";
import { h, mount } from "../dom.js";
import { cardName, onLanguageChange, t } from "../i18n.js";
import { saveSeat, savedName } from "../session.js";

export const TUTORIAL_LEVEL = "tutorial";
const SUGGESTED = { 1: "glazed", 2: "powdered", 3: "eclair" };
const SETUP = { 1: "pick", 2: "contest_setup", 3: "power_setup" };
const POWER_EVENTS = new Set([
  "card_drawn", "took_from_discard", "row_card_discarded", "card_discarded", "card_moved", "power_fizzled",
]);
const STORAGE = "gonuts.tutorial.";

/** Start a new guide: the table is made by the server; the page goes to it. */
export async function startTutorial(navigate) {
  const res = await api.tutorial(savedName() || t("tutorial.default_name"));
  saveSeat(res.table.id, res.seat, res.token);
  navigate(`/t/${res.table.id}`);
}

export class TutorialGuide {
  /**
   * The guide of a tutorial table (one whose bot seat has the level "tutorial"), or null.
   * @param {HTMLElement} anchor  the bubble goes just before it (the table's own element)
   * @param {any} summary  the table summary
   * @param {number|null|undefined} seat  the viewer's seat (null: a spectator, no guide)
   * @param {(path: string) => void} navigate
   */
  static forTable(anchor, summary, seat, navigate) {
    const coach = summary?.seats?.find((s) => s.level === TUTORIAL_LEVEL);
    if (!coach || seat === null || seat === undefined) return null;
    return new TutorialGuide(anchor, summary.id, coach.name ?? "", navigate);
  }

  constructor(anchor, tableId, coachName, navigate) {
    this.anchor = anchor;
    this.tableId = tableId;
    this.coach = coachName;
    this.navigate = navigate;
    this.queue = [];
    this.current = null;
    this.saw = { reveal: false, contest: false, power: false };
    let saved = null;
    try {
      saved = JSON.parse(localStorage.getItem(STORAGE + tableId) ?? "null");
    } catch {
      saved = null;
    }
    this.seen = new Set(saved?.seen ?? []);
    this.skipped = Boolean(saved?.skipped);
    this.box = h("aside", { class: "tutorial-bubble", "data-testid": "tutorial-bubble", "aria-live": "polite", hidden: true });
    anchor.before(this.box);
    this.view = null;
    const unlisten = onLanguageChange(() => {
      if (!this.box.isConnected && !this.anchor.isConnected) unlisten(); // the page is gone
      else if (this.current) this.#draw();
    });
    // the table redraws itself (moves, seats coming and going): keep the suggestion outlined
    new MutationObserver(() => this.#highlight()).observe(anchor, { childList: true, subtree: true });
  }

  #save() {
    localStorage.setItem(STORAGE + this.tableId, JSON.stringify({ seen: [...this.seen], skipped: this.skipped }));
  }

  /** A `state` message arrived; `shown` resolves once the table has animated and drawn it. */
  async onState(msg, shown) {
    await shown;
    if (!this.box.isConnected && this.anchor.isConnected) this.anchor.before(this.box);
    if (this.skipped) return;
    const view = msg.view;
    this.view = view;
    for (const e of msg.events ?? []) this.#onEvent(e);
    // a suggestion for a round the game has left is dropped unread
    this.queue = this.queue.filter((s) => s.round === undefined || s.round === view.round);
    if (view.over) {
      this.#want("scoring");
      this.#want("finished");
    } else if (view.phase === "select" && view.legal?.length) {
      if (view.round === 1) this.#want("welcome");
      if (view.round >= 3 && !this.saw.contest) this.#want("contest_missed");
      if (view.round >= 4 && !this.saw.power) {
        this.#want("power_missed");
        this.#want("play_on");
      }
      const setup = SETUP[view.round];
      const explained = { pick: "reveal", contest_setup: "contest", power_setup: "power" }[setup];
      if (setup && !this.saw[explained]) this.#want(setup, this.#suggestion(view), view.round);
    }
    this.#show();
    this.#highlight();
  }

  #onEvent(e) {
    if (e.type === "selections_revealed") {
      this.saw.reveal = true;
      this.#want("reveal");
    } else if (e.type === "card_contested") {
      this.saw.contest = true;
      this.#want("contest", { position: e.position, kind: e.card });
    } else if (POWER_EVENTS.has(e.type) && (e.source || e.type === "row_card_discarded")) {
      this.saw.power = true;
      this.#want("power", { what: e.text ?? "" });
      this.#want("play_on");
    }
  }

  /** The suggested card of this round and where it lies. */
  #suggestion(view) {
    const kind = SUGGESTED[view.round];
    return { kind, position: view.row.indexOf(kind) + 1 || "?" };
  }

  /** Queue step `id` (once per table: a reload does not repeat what was read); a `round`
   * makes it a suggestion for that round only. */
  #want(id, vars = {}, round = undefined) {
    if (this.seen.has(id) || this.queue.some((s) => s.id === id) || this.current?.id === id) return;
    this.queue.push({ id, round, vars: { coach: this.coach, ...vars } });
  }

  #show() {
    if (this.current || !this.queue.length) return;
    this.current = this.queue.shift();
    this.#draw();
    this.box.hidden = false;
    this.#highlight();
  }

  /** The current step's bubble, in the current language. */
  #draw() {
    const { id, vars } = this.current;
    const last = id === "finished";
    const card = vars.kind ? cardName(vars.kind) : undefined;
    mount(this.box,
      h("p", { class: "tutorial-title" }, t("tutorial.title")),
      h("p", { "data-step": id, "data-testid": `tutorial-${id}` }, t(`tutorial.${id}`, { ...vars, card })),
      h("div", { class: "row-inline" },
        last
          ? [
              h("button", { type: "button", "data-testid": "tutorial-again", onclick: () => this.#again() }, t("tutorial.again")),
              h("a", { class: "button secondary", href: "/", "data-link": "", "data-testid": "tutorial-lobby" }, t("tutorial.lobby")),
            ]
          : [
              h("button", { type: "button", "data-testid": "tutorial-next", onclick: () => this.#next() }, t("tutorial.next")),
              h("button", { type: "button", class: "secondary", "data-testid": "tutorial-skip", onclick: () => this.#skip() }, t("tutorial.skip")),
            ]));
  }

  #next() {
    if (this.current) this.seen.add(this.current.id);
    this.#save();
    this.current = null;
    this.box.hidden = true;
    this.#show();
    this.#highlight();
  }

  #skip() {
    this.skipped = true;
    this.#save();
    this.queue = [];
    this.current = null;
    this.box.hidden = true;
    this.#highlight();
  }

  async #again() {
    try {
      await startTutorial(this.navigate);
    } catch (e) {
      mount(this.box, h("div", { class: "error-banner", role: "alert" }, e.message));
    }
  }

  /** Outline the suggested card while its suggestion is on screen (and nothing else). */
  #highlight() {
    const view = this.view;
    const id = this.current?.id;
    let target = null;
    if (view && !this.skipped && Object.values(SETUP).includes(id) && view.phase === "select") {
      const position = view.row.indexOf(SUGGESTED[view.round]) + 1;
      if (position > 0) target = this.anchor.querySelector(`[data-testid=pick-${position}]`);
    }
    this.anchor.querySelectorAll(".tutorial-target").forEach((el) => {
      if (el !== target) el.classList.remove("tutorial-target");
    });
    if (target && !target.classList.contains("tutorial-target")) target.classList.add("tutorial-target");
  }
}
