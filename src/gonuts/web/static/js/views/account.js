// Accounts (optional: guests still play). The account API (docs/protocol.md "Accounts"), who is
// signed in (kept here, with listeners), the header's account links and the sign-in / sign-up
// page at /account, and there, once signed in, the owner's controls: notifications (notify.js), a
// new password, signing out everywhere, downloading the account's data, deleting it. The session itself is an HttpOnly
// cookie: scripts never see its token (nor the device cookie's).

import { ApiError } from "../api.js";
import { h, mount } from "../dom.js";
import { currentLanguage, t } from "../i18n.js";
import { notificationsSection } from "./notify.js";

async function call(method, url, body) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const sep = url.includes("?") ? "&" : "?";
  const res = await fetch(`${url}${sep}lang=${currentLanguage()}`, {
    method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: "same-origin",
  });
  const data = await res.json().catch(() => ({}));
  if (!res.ok) throw new ApiError(res.status, data?.error?.code ?? "error", data?.error?.message ?? res.statusText);
  return data;
}

export const accountApi = {
  me: () => call("GET", "/api/account"),
  signUp: (name, password) => call("POST", "/api/account/signup", { name, password }),
  signIn: (name, password) => call("POST", "/api/account/signin", { name, password }),
  signOut: () => call("POST", "/api/account/signout"),
  changePassword: (password, newPassword) =>
    call("POST", "/api/account/password", { password, new_password: newPassword }),
  signOutEverywhere: () => call("POST", "/api/account/signout-everywhere"),
  deleteAccount: (password) => call("POST", "/api/account/delete", { password }),
  leaderboard: (limit, offset) => call("GET", `/api/leaderboard?limit=${limit}&offset=${offset}`),
  player: (name) => call("GET", `/api/players/${encodeURIComponent(name)}`),
};

/** @type {{name: string, rating: number, games: number, wins: number} | null} */
let known = null;
const listeners = new Set();

/** The signed-in account as last heard (null: a guest, or not asked yet). */
export function knownAccount() {
  return known;
}

function setKnown(account) {
  known = account ?? null;
  for (const fn of listeners) fn(known);
}

/** Call `fn(account)` whenever someone signs in or out (or the account is refreshed). */
export function onAccountChange(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/** Ask the server who is signed in (at start, and after a game to show the new rating). */
export async function refreshAccount() {
  try {
    setKnown((await accountApi.me()).account);
  } catch {
    setKnown(null);
  }
  return known;
}

export function profilePath(name) {
  return `/players/${encodeURIComponent(name)}`;
}

/** The header's account part: "Sign in", or the player's name and rating and "Sign out". */
export function accountLinks(navigate) {
  if (!known) {
    return h("span", { class: "account-links" },
      h("a", { href: "/account", "data-link": "", "data-testid": "sign-in-link" }, t("account.sign_in")));
  }
  return h("span", { class: "account-links", "data-testid": "account-links" },
    h("a", { href: profilePath(known.name), "data-link": "", "data-testid": "my-profile" },
      known.name, " ", h("span", { class: "rating-badge", "data-testid": "my-rating" }, String(known.rating))),
    h("a", { href: "/account", "data-link": "", "data-testid": "account-settings" }, t("account.settings")),
    h("button", {
        type: "button", class: "link-button", "data-testid": "sign-out",
        onclick: async () => {
          try {
            await accountApi.signOut();
          } finally {
            setKnown(null);
            navigate("/");
          }
        },
      }, t("account.sign_out")));
}

/** /account: sign in, or make an account (one form, two buttons' worth of modes). */
export class AccountPage {
  /** @param {HTMLElement} root @param {(path: string) => void} navigate */
  constructor(root, navigate) {
    this.root = root;
    this.navigate = navigate;
    this.mode = "signin";
  }

  start() {
    this.signedIn = Boolean(known);
    // the header may learn who is signed in after this page is drawn
    this.off = onAccountChange((account) => {
      if (Boolean(account) !== this.signedIn) {
        this.signedIn = Boolean(account);
        this.render();
      }
    });
    this.render();
  }

  stop() {
    this.off?.();
  }

  render() {
    if (known) {
      this.renderControls();
      return;
    }
    const signingUp = this.mode === "signup";
    const errorBox = h("div", { role: "alert", "data-testid": "account-error" });
    const name = h("input", {
      id: "account-name", type: "text", maxlength: 24, autocomplete: "username", required: true,
      "data-testid": "account-name",
    });
    const password = h("input", {
      id: "account-password", type: "password", minlength: 8, maxlength: 256, required: true,
      autocomplete: signingUp ? "new-password" : "current-password", "data-testid": "account-password",
      "aria-describedby": "password-hint",
    });
    const submit = h("button", { type: "submit", "data-testid": "account-submit" },
      signingUp ? t("account.sign_up") : t("account.sign_in"));
    const form = h("form", { class: "account-form", novalidate: true },
      errorBox,
      h("label", { for: "account-name" }, t("account.name"), name),
      h("label", { for: "account-password" }, t("account.password"), password),
      h("p", { id: "password-hint", class: "muted" }, t("account.password_hint")),
      h("div", { class: "row-inline" }, submit));
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      if (!name.value.trim()) {
        mount(errorBox, h("div", { class: "error-banner" }, t("lobby.name_required")));
        name.focus();
        return;
      }
      if (password.value.length < 8) {
        mount(errorBox, h("div", { class: "error-banner" }, t("account.password_hint")));
        password.focus();
        return;
      }
      submit.disabled = true;
      try {
        const res = signingUp
          ? await accountApi.signUp(name.value, password.value)
          : await accountApi.signIn(name.value, password.value);
        setKnown(res.account);
        this.navigate("/");
      } catch (err) {
        mount(errorBox, h("div", { class: "error-banner" }, err.message));
        submit.disabled = false;
      }
    });
    const other = h("button", {
        type: "button", class: "link-button", "data-testid": "account-switch",
        onclick: () => { this.mode = signingUp ? "signin" : "signup"; this.render(); },
      }, signingUp ? t("account.have_account") : t("account.new_here"));
    mount(this.root,
      h("section", { class: "panel account-page", "aria-labelledby": "account-title" },
        h("h2", { id: "account-title" }, signingUp ? t("account.sign_up") : t("account.sign_in")),
        h("p", { class: "muted" }, t("account.why")),
        known ? h("p", {}, t("account.signed_in_as", { name: known.name })) : null,
        form,
        h("p", {}, other)));
    name.focus();
  }
}

/** A small form: a heading, its fields, a hint, one button, and where its outcome is told. */
function controlForm(id, title, hint, fields, button, onSubmit, { danger = false } = {}) {
  const status = h("div", { role: "status", "data-testid": `${id}-status` });
  const submit = h("button", { type: "submit", class: danger ? "danger" : "", "data-testid": `${id}-submit` }, button);
  const form = h("form", { class: "account-form", novalidate: true, "data-testid": id },
    ...fields.map(([fieldId, label, input]) => h("label", { for: fieldId }, label, input)),
    hint ? h("p", { class: "muted" }, hint) : null,
    h("div", { class: "row-inline" }, submit),
    status);
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    submit.disabled = true;
    try {
      const message = await onSubmit();
      mount(status, message ? h("p", { class: "ok-banner" }, message) : null);
    } catch (err) {
      mount(status, h("div", { class: "error-banner", role: "alert" }, err.message));
    } finally {
      submit.disabled = false;
    }
  });
  return h("section", { class: "account-control", "aria-labelledby": `${id}-title` },
    h("h3", { id: `${id}-title` }, title), form);
}

function passwordInput(id, autocomplete) {
  return h("input", {
    id, type: "password", minlength: 8, maxlength: 256, required: true, autocomplete, "data-testid": id,
  });
}

AccountPage.prototype.renderControls = function renderControls() {
  const current = passwordInput("current-password", "current-password");
  const fresh = passwordInput("new-password", "new-password");
  const changing = controlForm("change-password", t("account.change_password"), t("account.password_hint"),
    [["current-password", t("account.current_password"), current], ["new-password", t("account.new_password"), fresh]],
    t("account.change_password"),
    async () => {
      const res = await accountApi.changePassword(current.value, fresh.value);
      current.value = "";
      fresh.value = "";
      return t("account.password_changed", { n: res.ended });
    });
  const everywhere = controlForm("sign-out-everywhere", t("account.sign_out_everywhere"),
    t("account.sign_out_everywhere_hint"), [], t("account.sign_out_everywhere"),
    async () => {
      await accountApi.signOutEverywhere();
      setKnown(null);
      this.navigate("/");
      return null;
    });
  const confirm = passwordInput("delete-password", "current-password");
  const deleting = controlForm("delete-account", t("account.delete"), t("account.delete_hint"),
    [["delete-password", t("account.delete_confirm"), confirm]], t("account.delete"),
    async () => {
      await accountApi.deleteAccount(confirm.value);
      setKnown(null);
      this.navigate("/");
      return null;
    }, { danger: true });
  const notifications = notificationsSection();
  mount(this.root,
    h("section", { class: "panel account-page", "aria-labelledby": "account-title", "data-testid": "account-controls" },
      h("h2", { id: "account-title" }, t("account.manage_title")),
      h("p", {}, t("account.signed_in_as", { name: known.name }), " ",
        h("a", { href: profilePath(known.name), "data-link": "" }, t("account.my_profile"))),
      notifications,
      changing,
      h("section", { class: "account-control", "aria-labelledby": "export-title" },
        h("h3", { id: "export-title" }, t("account.export")),
        h("p", { class: "muted" }, t("account.export_hint")),
        h("a", { class: "button secondary", href: "/api/account/export", download: "", "data-testid": "export" },
          t("account.export"))),
      everywhere,
      deleting));
  if (location.hash === "#notifications") notifications.scrollIntoView();  // the mails' link
};

/** The lobby's line about accounts: who is signed in (rated games), or how to sign in. */
export function accountNote() {
  if (known) {
    return h("p", { class: "muted account-note", "data-testid": "account-note" },
      t("account.rated_as", { name: known.name }), " ",
      h("a", { href: "/leaderboard", "data-link": "" }, t("leaderboard.title")));
  }
  return h("p", { class: "muted account-note", "data-testid": "account-note" },
    h("a", { href: "/account", "data-link": "" }, t("account.sign_in")), " — ", t("account.rated_hint"));
}

/** Fill a name box with the signed-in account's name, read-only (the server uses it anyway). */
export function signedInName(input) {
  if (!known) return;
  input.value = known.name;
  input.readOnly = true;
}
