// /rules inside the app (issue 25): the server's rules content (GET /rules?lang=…&part=main,
// the <main id="rules"> of its page, built by transport/rules_page.py) under the app's header, in the
// app's language. A direct link or a reload of /rules gets the server's own page, which
// has the same header and styles without a script.

import { h, mount } from "../dom.js";
import { currentLanguage, t } from "../i18n.js";

const STYLESHEET = "/static/css/rules.css";

function ensureStylesheet() {
  if (document.querySelector(`link[href="${STYLESHEET}"]`)) return;
  document.head.append(h("link", { rel: "stylesheet", href: STYLESHEET }));
}

export class RulesPage {
  /** @param {HTMLElement} root */
  constructor(root) {
    this.root = root;
    this.stopped = false;
  }

  async start() {
    ensureStylesheet();
    mount(this.root, h("p", { class: "muted" }, t("app.loading")));
    const lang = currentLanguage();
    let section = null;
    try {
      const res = await fetch(`/rules?lang=${encodeURIComponent(lang)}&part=main`);
      if (res.ok) {
        // The server's own escaped markup, without a script or a style (parsed inert).
        const doc = new DOMParser().parseFromString(await res.text(), "text/html");
        section = h("article", { class: "rules", lang, "data-testid": "rules" });
        section.append(...Array.from(doc.body.childNodes, (n) => document.importNode(n, true)));
      }
    } catch {
      section = null;
    }
    if (this.stopped) return;
    if (!section) {
      mount(this.root, h("div", { class: "error-banner", role: "alert" }, t("app.connection_lost")));
      return;
    }
    mount(this.root, section);
    document.title = `${section.querySelector("h1")?.textContent ?? t("app.rules")} · ${t("app.title")}`;
    this.root.focus({ preventScroll: true });
  }

  stop() {
    this.stopped = true;
  }
}
