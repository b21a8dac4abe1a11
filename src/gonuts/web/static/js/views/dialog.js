// A modal choice: a title, a question and one button per legal option (nothing else).

import { cardEl } from "../cards.js";
import { h } from "../dom.js";
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
