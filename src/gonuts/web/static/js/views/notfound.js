// Any other address: a friendly "page not found" with the way back (the server answers such
// a browser request with index.html and status 404; /api/* keeps its JSON errors).

import { donutArt } from "../cards.js";
import { h, mount } from "../dom.js";
import { t } from "../i18n.js";

export class NotFoundPage {
  /** @param {HTMLElement} root */
  constructor(root) {
    this.root = root;
  }

  start() {
    mount(this.root,
      h("section", { class: "panel not-found", "data-testid": "not-found" },
        donutArt("plain", 96),
        h("h2", {}, t("notfound.title")),
        h("p", {}, t("notfound.text")),
        h("p", { class: "row-inline" },
          h("a", { class: "button", href: "/", "data-link": "" }, t("app.lobby")),
          h("a", { class: "button secondary", href: "/replays", "data-link": "" }, t("app.replays")))));
  }

  stop() {}
}
