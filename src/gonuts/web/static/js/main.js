// Entry point: language, header, and a small router over location.pathname
// (/, /t/{id}, /replays, /replay/{id}, /my-games, …; the server serves index.html for each).

import { api } from "./api.js";
import { donutArt } from "./cards.js";
import { h, mount } from "./dom.js";
import { LANGUAGES, currentLanguage, onLanguageChange, setLanguage, t } from "./i18n.js";
import { AccountPage, accountLinks, onAccountChange, refreshAccount } from "./views/account.js";
import { LeaderboardPage } from "./views/leaderboard.js";
import { LobbyPage } from "./views/lobby.js";
import { MyGamesPage, myGamesLink, refreshBadge, startBadge } from "./views/mygames.js";
import { ProfilePage } from "./views/profile.js";
import { NotFoundPage } from "./views/notfound.js";
import { ReplayListPage, ReplayPage } from "./views/replays.js";
import { RulesPage } from "./views/rules.js";
import { TablePage } from "./views/tablepage.js";

const LANGUAGE_NAMES = { en: "English", es: "Español", it: "Italiano" };

const header = document.getElementById("topbar");
const main = document.getElementById("app");
let page = null;

function renderHeader() {
  const lang = currentLanguage();
  mount(header,
    h("a", { class: "brand", href: "/", "data-link": "" }, donutArt("sprinkled", 28), t("app.title")),
    h("nav", { "aria-label": t("app.title") },
      h("a", { href: "/", "data-link": "" }, t("app.lobby")),
      myGamesLink(),
      h("a", { href: "/replays", "data-link": "" }, t("app.replays")),
      h("a", { href: "/leaderboard", "data-link": "" }, t("leaderboard.title")),
      h("a", { href: "/rules", "data-link": "", "data-testid": "rules-link" }, t("app.rules"))),
    accountLinks(navigate),
    h("label", { class: "toggle", for: "lang-select" },
      h("span", { class: "sr-only" }, t("app.language")),
      h("select", {
          id: "lang-select", "data-testid": "lang-select",
          onchange: (e) => setLanguage(e.target.value),
        },
        LANGUAGES.map((code) => h("option", { value: code, selected: code === lang }, LANGUAGE_NAMES[code])))));
  document.title = t("app.title");
}

function route() {
  page?.stop();
  document.querySelectorAll("dialog").forEach((d) => d.remove());
  const path = location.pathname;
  const params = new URLSearchParams(location.search);
  let m;
  if ((m = path.match(/^\/t\/([^/]+)\/?$/))) {
    page = new TablePage(main, decodeURIComponent(m[1]), navigate, { watch: params.has("watch") });
  } else if ((m = path.match(/^\/replay\/([^/]+)\/?$/))) {
    page = new ReplayPage(main, decodeURIComponent(m[1]));
  } else if (path === "/account") {
    page = new AccountPage(main, navigate);
  } else if (path === "/my-games") {
    page = new MyGamesPage(main, navigate);
  } else if (path === "/leaderboard") {
    page = new LeaderboardPage(main, navigate);
  } else if ((m = path.match(/^\/players\/([^/]+)\/?$/))) {
    page = new ProfilePage(main, decodeURIComponent(m[1]), navigate);
  } else if (path === "/rules") {
    page = new RulesPage(main);
  } else if (path.startsWith("/replays")) {
    page = new ReplayListPage(main, navigate);
  } else if (path === "/" || path === "/index.html") {
    page = new LobbyPage(main, navigate);
  } else {
    page = new NotFoundPage(main);
  }
  page.start();
}

/** Go to an in-app path without reloading. */
export function navigate(path) {
  history.pushState(null, "", path);
  route();
}

document.addEventListener("click", (e) => {
  const link = /** @type {HTMLElement} */ (e.target).closest?.("a[data-link]");
  if (!link || e.ctrlKey || e.metaKey || e.shiftKey || e.button !== 0) return;
  e.preventDefault();
  navigate(link.getAttribute("href"));
});
window.addEventListener("popstate", route);

async function boot() {
  // A link with ?lang= (the server's rules page links back so) chooses the language.
  const asked = new URLSearchParams(location.search).get("lang");
  if (asked && LANGUAGES.includes(asked)) localStorage.setItem("gonuts.lang", asked);
  let lang = localStorage.getItem("gonuts.lang");
  if (!lang || !LANGUAGES.includes(lang)) {
    try {
      lang = (await api.config()).lang;
    } catch {
      lang = "en";
    }
    await setLanguage(lang, { remember: false });
  } else {
    await setLanguage(lang);
  }
  await refreshAccount();
  renderHeader();
  onAccountChange(() => {
    renderHeader();
    refreshBadge(); // signing in or out changes whose games these are
  });
  onLanguageChange(() => {
    renderHeader();
    // Pages re-render in the new language; the table keeps its socket and asks for a new state.
    if (page instanceof TablePage) page.rerender();
    else route();
  });
  route();
  startBadge(); // (after the first page: /my-games counts by itself)
}

boot();
