// A modal choice: a title, a question and one button per legal option (nothing else).

import { cardEl, sortedKinds } from "../cards.js";
import { h, mount } from "../dom.js";
import { t, tn } from "../i18n.js";

/**
 * @param {{title: string, question: string, drawn?: string[],
 *          options: {action: string, label: string, kind?: string}[],
 *          onChoose: (action: string) => void, onHide?: () => void}} spec
 * @returns {HTMLDialogElement}
 */
export function choiceDialog(spec) {
  const dialog = /** @type {HTMLDialogElement} */ (
    h("dialog", { "aria-labelledby": "choice-title", "data-testid": "choice-dialog" },
      h("h2", { id: "choice-title" }, spec.title),
      h("p", {}, spec.question),
      spec.drawn?.length
        ? h("div", { class: "collection", role: "group", "aria-label": t("dialog.drawn") }, spec.drawn.map((k) => cardEl(k, { compact: true })))
        : null,
      h("div", { class: "choice-list" },
        spec.options.map((o) =>
          h("button", {
              type: "button",
              class: o.action === "stop" ? "secondary" : "",
              dataset: { action: o.action },
              onclick: () => spec.onChoose(o.action),
            },
            o.kind ? cardEl(o.kind, { compact: true }) : null,
            h("span", {}, o.label)))),
      spec.onHide
        ? h("div", { class: "dialog-actions" },
            h("button", { type: "button", class: "secondary", onclick: () => spec.onHide?.() }, t("dialog.look")))
        : null,
    )
  );
  dialog.addEventListener("cancel", (e) => {
    e.preventDefault();
    spec.onHide?.();
  });
  document.body.append(dialog);
  dialog.showModal();
  return dialog;
}

/** A player's real collection, small and with counts (what a steal or a gift changes). */
function collectionStrip(collection, label) {
  const kinds = sortedKinds(collection ?? {});
  return h("span", { class: "mini-collection", "aria-label": label, role: "list" },
    kinds.length
      ? kinds.map((k) => h("span", { role: "listitem" }, cardEl(k, { compact: true, count: collection[k] })))
      : h("span", { class: "muted" }, t("table.collection_empty")));
}

/**
 * A two-step choice for powers that name an opponent and a card (Bear Claw, Strawberry Glazed,
 * Sprinkled): first the opponent, then one of the cards (theirs, or yours to give them).
 * Each opponent is shown with their real collection (not the options: for Sprinkled those are
 * your own cards).
 * @param {{title: string, question: string, give?: boolean, mine?: Record<string, number>,
 *          opponents: {seat: number, name: string, collection?: Record<string, number>,
 *                      options: {action: string, label: string, kind?: string|null}[]}[],
 *          onChoose: (action: string) => void, onHide?: () => void}} spec
 * @returns {HTMLDialogElement}
 */
export function stealDialog(spec) {
  const body = h("div", { "data-testid": "steal-step" });
  const dialog = /** @type {HTMLDialogElement} */ (
    h("dialog", { "aria-labelledby": "choice-title", "data-testid": "choice-dialog", class: "steal" },
      h("h2", { id: "choice-title" }, spec.title),
      h("p", {}, spec.question),
      body,
      spec.onHide
        ? h("div", { class: "dialog-actions" },
            h("button", { type: "button", class: "secondary", onclick: () => spec.onHide?.() }, t("dialog.look")))
        : null));

  const showOpponents = () => {
    mount(body,
      h("p", { class: "step-question" }, t("steal.opponent")),
      h("div", { class: "opponent-list", "data-testid": "steal-opponents" },
        spec.opponents.map((o) => {
          const total = Object.values(o.collection ?? {}).reduce((a, b) => a + b, 0);
          return h("button", {
              type: "button", dataset: { seat: o.seat }, onclick: () => showCards(o),
            },
            h("span", { class: "opponent-name" },
              h("strong", {}, o.name),
              h("span", { class: "count-badge" }, tn("table.cards", total))),
            h("span", { class: "mini-cards", "aria-hidden": "true", "data-testid": "opponent-collection" },
              sortedKinds(o.collection ?? {}).map((k) => cardEl(k, { compact: true, count: o.collection[k] }))));
        })));
    /** @type {HTMLElement|null} */ (body.querySelector("button"))?.focus();
  };

  const showCards = (o) => {
    mount(body,
      spec.give
        ? h("div", { class: "their-cards", "data-testid": "recipient-collection" },
            h("span", { class: "muted" }, t("steal.they_have", { name: o.name })),
            collectionStrip(o.collection, t("table.collection_of", { name: o.name })))
        : null,
      h("p", { class: "step-question" },
        t(spec.give ? "steal.give" : "steal.card", { name: o.name })),
      h("div", { class: "choice-list", "data-testid": "steal-cards" },
        o.options.map((opt) => h("button", {
            type: "button", dataset: { action: opt.action }, onclick: () => spec.onChoose(opt.action),
          },
          opt.kind ? cardEl(opt.kind, { compact: true, count: (spec.give ? spec.mine : o.collection)?.[opt.kind] }) : null,
          h("span", {}, opt.label)))),
      spec.opponents.length > 1
        ? h("button", { type: "button", class: "secondary", "data-testid": "steal-back", onclick: showOpponents }, `← ${t("steal.back")}`)
        : null);
    /** @type {HTMLElement|null} */ (body.querySelector(".choice-list button"))?.focus();
  };

  dialog.addEventListener("cancel", (e) => {
    e.preventDefault();
    spec.onHide?.();
  });
  document.body.append(dialog);
  dialog.showModal();
  if (spec.opponents.length === 1) showCards(spec.opponents[0]);
  else showOpponents();
  return dialog;
}
