// The game table: donut row, prompt, players with collections and live scores, discard pile,
// event log, hints. Rendered from one seat's view (or a spectator's public view).

import { describeAction, parseAction } from "../actions.js";
import { cardEl, collectionCard, infoButton, longPress, sortedKinds } from "../cards.js";
import { h, mount } from "../dom.js";
import { describeEvent } from "../events.js";
import { cardName, displayName, listJoin, t, tn } from "../i18n.js";
import { choiceDialog, stealDialog } from "./dialog.js";
import { playReveal } from "./reveal.js";
import { endScreen } from "./end.js";
import { variantBadge } from "../variants.js";
import { knownAccount, refreshAccount } from "./account.js";

/**
 * @typedef {object} View  the server's PlayerView as JSON (docs/protocol.md)
 * @typedef {object} TableHandlers
 * @property {(action: string) => void} [act]        send a decision (absent: spectator / replay)
 * @property {(action: string) => void} [change]     replace my secret choice before the reveal
 *   (absent: sent as a `change` message through the clock's socket sender)
 * @property {(on: boolean) => void} [toggleHints]   switch hints for this seat
 * @property {() => void} [playAgain]
 * @property {import("../clock.js").TurnClock} [clock]   countdowns and "a bot plays for you"
 */

/** A phone-sized screen: opponents fold into a compact strip. */
function compactSeats() {
  return window.matchMedia?.("(max-width: 600px)").matches ?? false;
}

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
    this.change = []; // what my secret choice may still be changed to (state.change)
    this.dialog = null;
    this.queue = Promise.resolve();
    this.log = [];
    this.version = -1;
    this.extra = {}; // table info: names, seat kinds, breakdown, status
    this.error = "";
    this.focusKey = null; // the control that had keyboard focus, found again after a redraw
    this.openSeats = new Set(); // opponents opened on a phone's compact strip
    this.onKey = (e) => this.#shortcut(e);
    this.onResize = () => {
      if (this.view && !this.revealing && compactSeats() !== this.strip) this.render();
    };
    window.addEventListener("resize", this.onResize);
    if (handlers.act) document.addEventListener("keydown", this.onKey);
  }

  /** Stop listening for the keyboard shortcuts (the page is left). */
  destroy() {
    document.removeEventListener("keydown", this.onKey);
    window.removeEventListener("resize", this.onResize);
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
    this.change = state.change ?? [];
    this.#noteRating(state.rating);
    this.pending = null;
    this.dialogHidden = false;
    this.render();
  }

  /** The state's rating of a signed-in player (docs/protocol.md, `state.rating`): this game's
   * change goes to the end screen, and a rating the header does not show yet refreshes it. */
  #noteRating(rating) {
    if (!rating) return;
    if (rating.change !== null && rating.change !== undefined) {
      this.extra = { ...this.extra, rating: { rating: rating.rating, change: rating.change } };
    }
    const known = knownAccount();
    if (known && known.rating !== rating.rating && this.ratingShown !== rating.rating) {
      this.ratingShown = rating.rating; // (asked once per new figure)
      refreshAccount();
    }
  }

  /** New seat information (who is connected, who is played by a bot), shown at once. */
  setSeats(seats) {
    this.extra = { ...this.extra, seats };
    if (this.view && !this.revealing) this.render();
  }

  /** My rating after this (rated) game, for the end screen. */
  setRating(rating) {
    this.extra = { ...this.extra, rating };
    if (this.view?.over) this.render();
  }

  setHints(message) {
    if (message.version !== this.version) return;
    this.hints = message.hint;
    this.hintsVersion = message.version;
    this.render();
  }

  /** The hint of the current decision, or null: one of an earlier version is never shown. */
  #currentHint() {
    return this.hints && this.hintsVersion === this.version ? this.hints : null;
  }

  /** An open power dialog tells the hint's suggestion too (its options hide the panel). */
  #hintInDialog() {
    const dialog = this.dialog;
    if (!dialog) return;
    dialog.querySelector(".dialog-hint")?.remove();
    const hint = this.hintsOn ? this.#currentHint() : null;
    if (!hint?.why) return;
    const line = h("p", { class: "dialog-hint", "data-testid": "dialog-hint" }, t("hints.in_dialog", { why: hint.why }));
    const question = dialog.querySelector("h2 + p");
    if (question) question.after(line);
    else dialog.prepend(line);
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

  /** Replace my pick (or Cinnamon Twist pass) until everyone has chosen (docs/protocol.md,
   * "Changing a pick"): the server answers my own sockets only. */
  #sendChange(action) {
    if (this.pending) return;
    const send = this.handlers.change
      ?? ((a) => this.handlers.clock?.send?.({ type: "change", action: a }));
    if (!send) return;
    this.pending = action;
    this.error = "";
    this.#closeDialog();
    send(action);
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
    this.strip = compactSeats();
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
        this.extra.rating ?? null,
      ));
      return;
    }
    const names = this.names();
    const decision = view.legal?.length ? view.legal : [];
    const selecting = view.phase === "select";
    const seated = view.seat !== null && view.seat !== undefined;
    mount(
      this.root,
      h("div", { class: "table-screen", dataset: { players: names.length } },
        h("div", { class: "table-main" },
          h("section", { class: "table-head" },
            h("h2", {}, this.title || t("table.round", { n: view.round })),
            h("div", { class: "table-stats" },
              h("span", { class: "pill deck", "data-testid": "deck-size" }, tn("table.deck_size", view.deck_size)),
              h("span", { class: "pill", "data-testid": "discard-count" }, t("table.discard_count", { n: view.discard.length })),
              variantBadge(view.variants),
              this.handlers.clock?.controls(view),
              view.known_deck_top
                ? h("span", { class: "pill" }, t("table.known_top", { card: cardName(view.known_deck_top) }))
                : null,
              this.handlers.toggleHints && seated
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
          // The prompt and my countdown share one line of fixed height: the row never moves.
          h("div", { class: "prompt-line" },
            this.#prompt(view, names, decision),
            this.#changePass(view, names, decision),
            this.handlers.clock?.mine(view)),
          this.#row(view, names, selecting ? decision : [], selecting ? this.change : []),
          h("div", { class: "table-extras" },
            this.hintsOn ? this.#hintsPanel(names) : null,
            this.#log(view, names),
            this.#discard(view),
            seated && this.handlers.act ? this.#help(view) : null),
        ),
        h("aside", { class: "table-side", "aria-label": t("table.players") },
          h("h3", { class: "sr-only" }, t("table.players")),
          this.#players(view, names)),
      ),
    );
    const log = this.root.querySelector(".log");
    if (log) log.scrollTop = log.scrollHeight; // chronological: the newest line in view
    if (decision.length && !selecting && !this.pending) this.#openDialog(view, names, decision);
    this.#hintInDialog();
  }

  /** What the pending power asks, naming the neighbour a Cinnamon Twist pass goes to. */
  #question(view, names) {
    if (view.power === "cinnamon_twist" && view.seat !== null && view.seat !== undefined) {
      return t("dialog.cinnamon_twist_to", { name: names[(view.seat + 1) % names.length] });
    }
    return t(`dialog.${view.power}`, { n: view.step ?? 0 });
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
      text = this.#question(view, names);
      cls = "prompt";
    } else if (view.phase === "select" && view.selections?.[me] && this.change.length) {
      text = t("table.change_pick", { n: view.selections[me] });
      cls = "prompt locked changeable";
    } else if (view.phase === "select" && view.selections?.[me]) {
      text = `${t("table.locked_in", { n: view.selections[me] })} ${t("table.others_hidden")}`;
      cls = "prompt locked";
    } else if (view.phase === "cinnamon_twist" && view.my_pass && this.change.length > 1) {
      text = t("table.change_pass", { card: cardName(view.my_pass) });
      cls = "prompt locked changeable";
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
      // Two sentences: end the first one before the second starts.
      text = text ? `${/[.!?…:]$/.test(text) ? text : `${text}.`} ${w}` : w;
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

  #row(view, names, picks, changes = []) {
    const legal = new Set(picks.map((a) => a.position));
    const changeable = new Set(changes.map((a) => a.position));
    const me = view.seat;
    const mine = me !== null && me !== undefined ? view.selections?.[me] : null;
    // Fixed slots: a grid of as many columns as positions (two lines on a phone), so a card
    // leaving during the reveal never re-flows the others.
    const slots = view.row.length;
    return h("section", {
        class: "donut-row", "aria-label": t("table.row"), "data-testid": "row", tabindex: -1,
        dataset: { slots },
      },
      view.row.map((kind, i) => {
        const pos = i + 1;
        const markers = (view.selections ?? [])
          .map((sel, p) => (sel === pos ? p : -1))
          .filter((p) => p >= 0)
          .map((p) => h("span", { class: `marker${p === me ? " me" : ""}`, dataset: { seat: p } }, names[p]));
        const canChange = !legal.has(pos) && changeable.has(pos) && pos !== mine && !this.pending;
        const canPick = (legal.has(pos) || canChange) && !this.pending;
        const card = kind
          ? cardEl(kind, {
              tag: "button",
              srPrefix: `${t("table.position", { n: pos })}:`,
              attrs: {
                type: "button",
                disabled: !canPick,
                "data-testid": `pick-${pos}`,
                "data-change": canChange ? "true" : null,
                title: canChange ? t("table.change_to", { n: pos }) : null,
                onclick: canChange ? () => this.#sendChange(`pick ${pos}`)
                  : canPick ? () => this.#send(`pick ${pos}`) : null,
              },
            })
          : h("div", { class: "empty-card" }, t("table.empty"));
        if (kind) longPress(card, kind);
        return h("div", {
            class: `slot${kind ? "" : " empty"}${mine === pos ? " mine" : ""}${view.resolving === pos ? " resolving" : ""}`,
            dataset: { position: pos },
          },
          h("span", { class: "slot-head" },
            h("span", { class: "slot-number", "aria-hidden": "true" }, pos),
            kind ? infoButton(kind) : null),
          card,
          h("span", { class: "markers" }, markers));
      }));
  }

  #players(view, names) {
    const seatKinds = this.extra.seats ?? [];
    const strip = compactSeats();
    const left = names.length > 1 && view.seat !== null && view.seat !== undefined
      ? (view.seat + 1) % names.length : null;
    return h("ul", { class: `players${strip ? " strip" : ""}`, "data-testid": "players" },
      names.map((name, p) => {
        const coll = view.collections[p] ?? {};
        const count = Object.values(coll).reduce((a, b) => a + b, 0);
        const waiting = (view.waiting_for ?? []).includes(p);
        const chosen = view.phase === "select" && !waiting;
        const info = seatKinds[p];
        const note = info?.kind === "human" && info.bot_playing ? t("table.replaced")
          : info?.kind === "human" && info.taken && !info.connected ? t("table.away") : null;
        const me = p === view.seat;
        // On a phone an opponent is one compact line (name, status, cards, score): a tap opens it.
        const folded = strip && !me && !this.openSeats.has(p);
        const status = waiting
          ? h("span", { class: "status waiting", "data-testid": `thinking-${p}` }, t("table.thinking"))
          : chosen ? h("span", { class: "status done" }, t("table.chosen")) : null;
        const nameEl = h("span", { class: "player-name" },
          name,
          me ? ` (${t("lobby.you")})` : "",
          note ? h("span", { class: "muted" }, ` · ${note}`) : null);
        const leftNote = p === left ? h("span", { class: "muted left-of-me" }, t("table.on_your_left")) : null;
        const facts = h("span", { class: "player-facts" },
          status,
          this.handlers.clock?.badge(p) ?? null,
          h("span", { class: "muted card-count" }, tn("table.cards", count)),
          h("span", { class: "player-score", "data-testid": `score-${p}`, title: t("table.score", { n: view.scores[p] }) }, view.scores[p]));
        const head = strip && !me
          ? h("button", {
              type: "button", class: "player-head player-toggle", "aria-expanded": folded ? "false" : "true",
              onclick: () => {
                if (this.openSeats.has(p)) this.openSeats.delete(p);
                else this.openSeats.add(p);
                this.render();
              },
            }, h("span", { class: "player-who" }, nameEl, leftNote), facts)
          : h("div", { class: "player-head" }, h("span", { class: "player-who" }, nameEl, leftNote), facts);
        return h("li", {
            class: `player${me ? " me" : ""}${waiting ? " thinking" : ""}${folded ? " folded" : ""}`,
            dataset: { seat: p },
          },
          head,
          folded ? null : h("div", { class: "collection", role: "group", "aria-label": t("table.collection_of", { name }) },
            sortedKinds(coll).map((k) => collectionCard(k, coll[k]))));
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
    // Oldest first, as a round is read; each round under its own heading line.
    const items = this.log.slice(-60);
    return h("section", { class: "panel log-panel" },
      h("details", { open: true },
        h("summary", {}, t("table.log")),
        h("ul", { class: "log", "data-testid": "log", tabindex: 0, "aria-label": t("table.log") },
          items.map((e) => h("li", { class: e.type === "round_started" ? "round-line" : "" }, describeEvent(e))))));
  }

  #hintsPanel(names) {
    const hint = this.#currentHint();
    const view = this.view;
    const deciding = Boolean(view?.legal?.length);
    const pct = (p) => `${Math.round(p * 100)}%`;
    const contestedShown = (hint?.actions ?? []).some((a) => a.contested !== null && a.contested !== undefined);
    const legend = h("ul", { class: "hint-legend muted", "data-testid": "hint-legend" },
      h("li", {}, t("hints.legend_win")),
      h("li", {}, t("hints.legend_score")),
      contestedShown ? h("li", {}, t("hints.legend_contested")) : null,
      h("li", {}, t("hints.legend_source")));
    if (!hint) {
      return h("section", { class: "panel hints", "data-testid": "hints" },
        h("h3", {}, t("table.hints")),
        h("p", { class: "muted" }, deciding ? t("table.hint_thinking") : t("hints.none")));
    }
    return h("section", { class: "panel hints", "data-testid": "hints" },
      h("h3", {}, t("table.hints")),
      hint.why ? h("p", { class: "hint-why", "data-testid": "hint-why" }, "★ ", hint.why) : null,
      h("table", {},
        h("thead", {}, h("tr", {},
          h("th", { scope: "col" }, t("hints.action")),
          h("th", { scope: "col" }, t("hints.win")),
          h("th", { scope: "col" }, t("hints.score")),
          contestedShown ? h("th", { scope: "col" }, t("hints.contested")) : null)),
        h("tbody", {}, (hint.actions ?? []).map((a) => {
          const best = a.action === hint.recommended;
          return h("tr", { class: best ? "best" : "", dataset: { action: a.action } },
            h("td", {},
              best ? h("span", { class: "sr-only" }, `${t("hints.suggested")}: `) : null,
              best ? "★ " : "",
              a.label ?? describeAction(a.action, names),
              a.card && !(a.label ?? "").includes(cardName(a.card))
                ? h("span", { class: "hint-card" }, ` · ${cardName(a.card)}`) : null),
            h("td", {}, pct(a.win_probability)),
            h("td", {}, a.expected_score == null ? "–" : a.expected_score.toFixed(1)),
            contestedShown ? h("td", {}, a.contested == null ? "–" : pct(a.contested)) : null);
        }))),
      legend);
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

  /** Beside the prompt (its line has a fixed height): pass another Cinnamon Twist card. */
  #changePass(view, names, decision) {
    if (decision.length || view.phase !== "cinnamon_twist" || !view.my_pass) return null;
    if (this.change.length < 2 || this.pending) return null;
    return h("button", {
      type: "button", class: "secondary change-pass", "data-testid": "change-pass",
      onclick: () => this.#openChangeDialog(view, names),
    }, t("table.change_pass_button"));
  }

  /** The Cinnamon Twist dialog again, to pass another card instead (until everyone has chosen). */
  #openChangeDialog(view, names) {
    if (this.dialog) return;
    const mine = `pass ${view.my_pass}`;
    this.dialog = choiceDialog({
      title: `★ ${cardName(view.power ?? "")}`,
      question: this.#question(view, names),
      drawn: [],
      options: this.change.filter((a) => a.action !== mine).map((a) => ({
        action: a.action,
        label: a.label ?? describeAction(a.action, names),
        kind: a.kind ?? parseAction(a.action).kind ?? null,
      })),
      onChoose: (a) => this.#sendChange(a),
      onHide: () => {
        this.#closeDialog();
        this.render();
      },
    });
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
        question: this.#question(view, names),
        give: view.power === "sprinkled",
        mine: view.collections[view.seat] ?? {},
        opponents: [...seats].map((seat) => ({
          seat, name: names[seat], collection: view.collections[seat] ?? {},
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
      question: this.#question(view, names),
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
