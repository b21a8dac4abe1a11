// A modal choice: a title, a question and one button per legal option (nothing else).

import { cardEl } from "../cards.js";
import { h, mount } from "../dom.js";
import { t } from "../i18n.js";

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
        ? h("div", { class: "collection", "aria-label": t("dialog.drawn") }, spec.drawn.map((k) => cardEl(k, { compact: true })))
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

/**
 * A two-step choice for powers that name an opponent and a card (Bear Claw, Strawberry Glazed,
 * Sprinkled): first the opponent, then one of the cards (theirs, or yours to give them).
 * @param {{title: string, question: string, give?: boolean,
 *          opponents: {seat: number, name: string, options: {action: string, label: string, kind?: string|null}[]}[],
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
        spec.opponents.map((o) => h("button", {
            type: "button", dataset: { seat: o.seat }, onclick: () => showCards(o),
          },
          h("strong", {}, o.name),
          h("span", { class: "mini-cards", "aria-hidden": "true" },
            o.options.slice(0, 6).map((opt) => (opt.kind ? cardEl(opt.kind, { compact: true }) : null))),
          h("span", { class: "count-badge" }, `${o.options.length}`)))));
    /** @type {HTMLElement|null} */ (body.querySelector("button"))?.focus();
  };

  const showCards = (o) => {
    mount(body,
      h("p", { class: "step-question" },
        t(spec.give ? "steal.give" : "steal.card", { name: o.name })),
      h("div", { class: "choice-list", "data-testid": "steal-cards" },
        o.options.map((opt) => h("button", {
            type: "button", dataset: { action: opt.action }, onclick: () => spec.onChoose(opt.action),
          },
          opt.kind ? cardEl(opt.kind, { compact: true }) : null,
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
