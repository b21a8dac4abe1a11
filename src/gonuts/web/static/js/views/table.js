// The game table: donut row, prompt, players with collections and live scores, discard pile,
// event log, hints. Rendered from one seat's view (or a spectator's public view).

import { describeAction, parseAction } from "../actions.js";
import { cardEl, infoButton, sortedKinds } from "../cards.js";
import { h, mount } from "../dom.js";
import { describeEvent } from "../events.js";
import { cardName, displayName, listJoin, t, tn } from "../i18n.js";
import { choiceDialog, stealDialog } from "./dialog.js";
import { playReveal } from "./reveal.js";
import { endScreen } from "./end.js";
import { variantBadge } from "../variants.js";

/**
 * @typedef {object} View  the server's PlayerView as JSON (docs/protocol.md)
 * @typedef {object} TableHandlers
 * @property {(action: string) => void} [act]        send a decision (absent: spectator / replay)
 * @property {(on: boolean) => void} [toggleHints]   switch hints for this seat
 * @property {() => void} [playAgain]
 * @property {import("../clock.js").TurnClock} [clock]   countdowns and "a bot plays for you"
 */

export class TableScreen {
  /**
   * @param {HTMLElement} root
   * @param {TableHandlers} handlers
   * @param {{animate?: boolean, title?: string, latestOnly?: boolean}} [options]
   *   latestOnly: a newer update cancels the animation of an older one and skips it (replays)
   */
  constructor(root, handlers, options = {}) {
    this.root = root;
    this.handlers = handlers;
    this.animate = options.animate ?? true;
    this.latestOnly = options.latestOnly ?? false; // replays: a newer state cancels older ones
    this.generation = 0;
    this.title = options.title ?? "";
    /** @type {View|null} */
    this.view = null;
    this.hints = null;
    this.hintsOn = false;
    this.pending = null; // the action we sent and await an answer for
    this.dialog = null;
    this.queue = Promise.resolve();
    this.log = [];
    this.version = -1;
    this.extra = {}; // table info: names, seat kinds, breakdown, status
    this.error = "";
    this.focusKey = null; // the control that had keyboard focus, found again after a redraw
    this.onKey = (e) => this.#shortcut(e);
    if (handlers.act) document.addEventListener("keydown", this.onKey);
  }

  /** Stop listening for the keyboard shortcuts (the page is left). */
  destroy() {
    document.removeEventListener("keydown", this.onKey);
  }

  /** 1–7 moves the focus to that row position (Enter then confirms it, as a button does). */
  #shortcut(e) {
    if (!this.root.isConnected || e.ctrlKey || e.metaKey || e.altKey) return;
    if (!/^[1-9]$/.test(e.key) || document.querySelector("dialog[open]")) return;
    const target = /** @type {HTMLElement|null} */ (e.target);
    if (target?.closest?.("input:not([type=checkbox]):not([type=radio]), select, textarea")) return;
    const button = /** @type {HTMLButtonElement|null} */ (
      this.root.querySelector(`[data-testid="pick-${e.key}"]`));
    if (!button || button.disabled) return;
    e.preventDefault();
    button.focus();
    this.focusKey = `pick-${e.key}`;
    const prompt = this.root.querySelector("[data-testid=prompt]");
    if (prompt) prompt.textContent = t("help.armed", { n: e.key });
  }

  /** Which control has the focus, by a key that survives a redraw (its data-testid or id). */
  #rememberFocus() {
    const el = /** @type {HTMLElement|null} */ (document.activeElement);
    // The row itself only holds the focus while its positions are off: keep the position.
    if (!el || !this.root.contains(el) || el.dataset?.testid === "row") return;
    this.focusKey = el.dataset?.testid ? `${el.dataset.testid}` : el.id ? `#${el.id}` : this.focusKey;
  }

  /** Give the focus back to the same control after a redraw (or to the row while it is off). */
  #restoreFocus() {
    const active = document.activeElement;
    if (!this.focusKey || (active && active !== document.body && active !== this.root)) return;
    const key = this.focusKey;
    const el = /** @type {HTMLElement|null} */ (key.startsWith("#")
      ? this.root.querySelector(`#${CSS.escape(key.slice(1))}`)
      : this.root.querySelector(`[data-testid="${CSS.escape(key)}"]`));
    if (el && !(/** @type {any} */ (el).disabled)) el.focus({ preventScroll: true });
    else if (key.startsWith("pick-")) this.root.querySelector("[data-testid=row]")?.focus({ preventScroll: true });
  }

  /**
   * Show a `state` message (docs/protocol.md): new events are animated first unless `full`,
   * then the view is drawn. Updates are applied one at a time, in order.
   * @param {{view: View, events: object[], events_from: number, full: boolean, breakdown: any, version?: number}} state
   */
  update(state, extra = {}) {
    const generation = ++this.generation;
    this.queue = this.queue.then(() => this.#apply(state, extra, generation)).catch((e) => console.error(e));
    return this.queue;
  }

  async #apply(state, extra, generation) {
    const stale = () => this.latestOnly && generation !== this.generation;
    if (stale()) return;
    const previous = this.view;
    const events = state.events ?? [];
    this.log = state.full ? [...events] : [...this.log.slice(0, state.events_from ?? this.log.length), ...events];
    this.extra = { ...this.extra, ...extra };
    if (state.breakdown) this.extra.breakdown = state.breakdown;
    // `reveal`: the events to animate when a full state is shown (a replay's step forwards).
    const animated = state.reveal ?? (state.full ? [] : events);
    if (animated.length && previous && this.animate) {
      this.#closeDialog();
      this.revealing = true;
      try {
        await playReveal(this.root, previous, animated, this.names(state.view), stale);
      } finally {
        this.revealing = false;
      }
      if (stale()) return;
    }
    this.view = state.view;
    this.version = state.version;
    this.pending = null;
    this.dialogHidden = false;
    this.render();
  }

  /** New seat information (who is connected, who is played by a bot), shown at once. */
  setSeats(seats) {
    this.extra = { ...this.extra, seats };
    if (this.view && !this.revealing) this.render();
  }

  setHints(message) {
    if (message.version !== this.version) return;
    this.hints = message.hint;
    this.render();
  }

  setHintsOn(on) {
    this.hintsOn = on;
    if (!on) this.hints = null;
    this.render();
  }

  showError(message) {
    this.error = message;
    this.pending = null;
    this.render();
  }

  names(view = this.view) {
    return (this.extra.names ?? view?.players ?? []).map(displayName);
  }

  /** The events of the last round (from its round_started on), for the end screen. */
  #lastRound() {
    const start = this.log.map((e) => e.type).lastIndexOf("round_started");
    return this.log.slice(Math.max(start, 0));
  }

  #send(action) {
    if (!this.handlers.act || this.pending) return;
    this.pending = action;
    this.error = "";
    this.#closeDialog();
    this.handlers.act(action);
    this.render();
  }

  #closeDialog() {
    if (this.dialog) {
      this.dialog.close();
      this.dialog.remove();
      this.dialog = null;
    }
  }

  render() {
    this.#rememberFocus();
    this.#draw();
    this.#restoreFocus();
  }

  #draw() {
    const view = this.view;
    if (!view) {
      mount(this.root, h("p", { class: "muted" }, t("app.loading")));
      return;
    }
    if (view.over) {
      this.#closeDialog();
      mount(this.root, endScreen(
        view, this.names(), this.extra.breakdown,
        view.seat !== null && view.seat !== undefined ? this.handlers.playAgain : undefined,
        this.extra.gameId ?? null,
        this.#lastRound(),
      ));
      return;
    }
    const names = this.names();
    const decision = view.legal?.length ? view.legal : [];
    const selecting = view.phase === "select";
    mount(
      this.root,
      h("section", { class: "table-head" },
        h("h2", {}, this.title || t("table.round", { n: view.round })),
        h("div", { class: "table-stats" },
          h("span", { class: "pill deck", "data-testid": "deck-size" }, tn("table.deck_size", view.deck_size)),
          h("span", { class: "pill" }, t("table.discard_count", { n: view.discard.length })),
          variantBadge(view.variants),
          this.handlers.clock?.controls(view),
          view.known_deck_top
            ? h("span", { class: "pill" }, t("table.known_top", { card: cardName(view.known_deck_top) }))
            : null,
          this.handlers.toggleHints && view.seat !== null && view.seat !== undefined
            ? h("label", { class: "toggle pill" },
                h("input", {
                  type: "checkbox", checked: this.hintsOn, "data-testid": "hints-toggle",
                  onchange: (e) => this.handlers.toggleHints(e.target.checked),
                }),
                t("table.hints"))
            : null,
        ),
      ),
      this.error ? h("div", { class: "error-banner", role: "alert" }, this.error) : null,
      this.#prompt(view, names, decision),
      this.handlers.clock?.mine(view),
      this.#row(view, names, selecting ? decision : []),
      h("div", { class: "table-layout" },
        h("section", { class: "panel", "aria-label": t("table.players") },
          h("h3", {}, t("table.players")),
          this.#players(view, names)),
        h("div", {},
          this.hintsOn ? this.#hintsPanel(names) : null,
          this.#discard(view),
          this.#log(view, names),
          view.seat !== null && view.seat !== undefined && this.handlers.act ? this.#help(view) : null),
      ),
    );
    if (decision.length && !selecting && !this.pending) this.#openDialog(view, names, decision);
  }

  #prompt(view, names, decision) {
    const me = view.seat;
    let text;
    let cls = "prompt idle";
    if (this.pending) {
      text = t("table.sending");
    } else if (me === null || me === undefined) {
      text = t("table.spectator");
    } else if (decision.length && view.phase === "select") {
      text = t("table.choose_position");
      cls = "prompt";
    } else if (decision.length) {
      text = t(`dialog.${view.power}`, { n: view.step ?? 0 });
      cls = "prompt";
    } else if (view.phase === "select" && view.selections?.[me]) {
      text = `${t("table.locked_in", { n: view.selections[me] })} ${t("table.others_hidden")}`;
      cls = "prompt locked";
    } else if (view.phase === "cinnamon_twist" && view.my_pass) {
      text = t("table.my_pass", { card: cardName(view.my_pass) });
      cls = "prompt locked";
    } else if (view.power && view.actor !== null && view.actor !== undefined) {
      text = t("dialog.waiting_power", { name: names[view.actor], card: cardName(view.power) });
    } else {
      text = "";
    }
    const waiting = (view.waiting_for ?? []).filter((p) => p !== me).map((p) => names[p]);
    if (waiting.length) {
      const w = t("table.waiting_for", { names: listJoin(waiting) });
      text = text ? `${text} ${w}` : w;
    }
    const reopen = decision.length && view.phase !== "select" && this.dialogHidden
      ? h("button", {
          type: "button", class: "secondary",
          onclick: () => { this.dialogHidden = false; this.render(); },
        }, t("dialog.show"))
      : null;
    return h("div", { class: cls, role: "status", "aria-live": "polite", "data-testid": "prompt" },
      text || "\u00a0", reopen ? " " : null, reopen);
  }

  #row(view, names, picks) {
    const legal = new Set(picks.map((a) => a.position));
    const me = view.seat;
    const mine = me !== null && me !== undefined ? view.selections?.[me] : null;
    return h("section", { class: "donut-row", "aria-label": t("table.row"), "data-testid": "row", tabindex: -1 },
      view.row.map((kind, i) => {
        const pos = i + 1;
        const markers = (view.selections ?? [])
          .map((sel, p) => (sel === pos ? p : -1))
          .filter((p) => p >= 0)
          .map((p) => h("span", { class: `marker${p === me ? " me" : ""}`, dataset: { seat: p } }, names[p]));
        const canPick = legal.has(pos) && !this.pending;
        const card = kind
          ? cardEl(kind, {
              tag: "button",
              attrs: {
                type: "button",
                disabled: !canPick,
                "aria-label": t("table.pick_aria", { position: pos, card: cardName(kind) }),
                "data-testid": `pick-${pos}`,
                onclick: canPick ? () => this.#send(`pick ${pos}`) : null,
              },
            })
          : h("div", { class: "empty-card" }, t("table.empty"));
        return h("div", {
            class: `slot${kind ? "" : " empty"}${mine === pos ? " mine" : ""}${view.resolving === pos ? " resolving" : ""}`,
            dataset: { position: pos },
          },
          h("span", { class: "slot-number", "aria-hidden": "true" }, pos),
          card,
          kind ? infoButton(kind) : null,
          h("span", { class: "markers" }, markers));
      }));
  }

  #players(view, names) {
    const seatKinds = this.extra.seats ?? [];
    return h("ul", { class: "players", "data-testid": "players" },
      names.map((name, p) => {
        const coll = view.collections[p] ?? {};
        const count = Object.values(coll).reduce((a, b) => a + b, 0);
        const waiting = (view.waiting_for ?? []).includes(p);
        const chosen = view.phase === "select" && !waiting;
        const info = seatKinds[p];
        const note = info?.kind === "human" && info.bot_playing ? t("table.replaced")
          : info?.kind === "human" && info.taken && !info.connected ? t("table.away") : null;
        return h("li", {
            class: `player${p === view.seat ? " me" : ""}`,
            dataset: { seat: p },
          },
          h("div", { class: "player-head" },
            h("span", { class: "player-name" },
              name,
              p === view.seat ? ` (${t("lobby.you")})` : "",
              note ? h("span", { class: "muted" }, ` · ${note}`) : null),
            h("span", {},
              waiting ? h("span", { class: "status waiting" }, t("table.thinking"))
                : chosen ? h("span", { class: "status done" }, t("table.chosen")) : null,
              " ",
              this.handlers.clock?.badge(p) ?? null,
              " ",
              h("span", { class: "muted" }, tn("table.cards", count)),
              " ",
              h("span", { class: "player-score", "data-testid": `score-${p}`, title: t("table.score", { n: view.scores[p] }) }, view.scores[p])),
          ),
          h("div", { class: "collection" },
            sortedKinds(coll).map((k) => cardEl(k, { compact: true, count: coll[k] }))));
      }));
  }

  #discard(view) {
    const pile = [...view.discard].reverse();
    return h("section", { class: "panel" },
      h("details", { "data-testid": "discard" },
        h("summary", {}, `${t("table.discard")} (${pile.length})`),
        pile.length
          ? h("div", { class: "discard-pile" },
              pile.map((k, i) =>
                h("div", { class: i === 0 ? "top" : "" },
                  i === 0 ? h("div", { class: "top-label" }, t("table.discard_top")) : null,
                  cardEl(k, { compact: true }))))
          : h("p", { class: "muted" }, t("table.discard_empty"))));
  }

  #log(view, names) {
    const items = this.log.slice(-40).reverse();
    return h("section", { class: "panel" },
      h("details", { open: true },
        h("summary", {}, t("table.log")),
        h("ul", { class: "log" }, items.map((e) => h("li", {}, describeEvent(e))))));
  }

  #hintsPanel(names) {
    const hint = this.hints;
    return h("section", { class: "panel hints", "data-testid": "hints" },
      h("h3", {}, t("table.hints")),
      !hint ? h("p", { class: "muted" }, t("table.hint_thinking"))
        : h("table", {},
            h("thead", {}, h("tr", {},
              h("th", {}, t("hints.action")), h("th", {}, t("hints.win")), h("th", {}, t("hints.score")))),
            h("tbody", {}, (hint.actions ?? []).map((a) =>
              h("tr", { class: a.action === hint.recommended ? "best" : "" },
                h("td", {}, a.label ?? describeAction(a.action, names)),
                h("td", {}, `${Math.round(a.win_probability * 100)}%`),
                h("td", {}, a.expected_score == null ? "–" : a.expected_score.toFixed(1)))))));
  }

  #help(view) {
    return h("section", { class: "panel help-panel" },
      h("details", { class: "help", "data-testid": "help" },
        h("summary", {}, t("help.title")),
        h("ul", {},
          h("li", {}, t("help.pick", { max: view.row.length })),
          h("li", {}, t("help.enter")),
          h("li", {}, t("help.tab")))));
  }

  #openDialog(view, names, decision) {
    if (this.dialog) return;
    if (this.dialogHidden) return;
    const options = decision.map((a) => ({
      action: a.action,
      label: a.label ?? describeAction(a.action, names),
      kind: a.kind ?? parseAction(a.action).kind ?? null,
      seat: a.seat ?? parseAction(a.action).seat,
    }));
    const seats = new Set(options.filter((o) => o.action !== "stop").map((o) => o.seat));
    if (options.length > 1 && !seats.has(undefined) && !seats.has(null)) {
      // Bear Claw, Strawberry Glazed, Sprinkled: the opponent first, then the card.
      this.dialog = stealDialog({
        title: `★ ${cardName(view.power ?? "")}`,
        question: t(`dialog.${view.power}`, { n: view.step ?? 0 }),
        give: view.power === "sprinkled",
        opponents: [...seats].map((seat) => ({
          seat, name: names[seat],
          options: options.filter((o) => o.seat === seat),
        })),
        onChoose: (a) => this.#send(a),
        onHide: () => {
          this.dialogHidden = true;
          this.#closeDialog();
          this.render();
        },
      });
      return;
    }
    this.dialog = choiceDialog({
      title: `★ ${cardName(view.power ?? "")}`,
      question: t(`dialog.${view.power}`, { n: view.step ?? 0 }),
      drawn: view.drawn,
      options: decision.map((a) => ({
        action: a.action,
        label: a.label ?? describeAction(a.action, names),
        // A French Cruller discard names a position: show the card that lies there.
        kind: a.kind ?? parseAction(a.action).kind ?? (a.position ? view.row[a.position - 1] : null),
      })),
      onChoose: (a) => this.#send(a),
      onHide: () => {
        this.dialogHidden = true;
        this.#closeDialog();
        this.render();
      },
    });
  }
}
