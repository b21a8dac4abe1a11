// The account page's "Notifications" section (docs/protocol.md "Notifications"): push on this
// device (a PushManager subscription with the server's VAPID key, kept by the server for the
// account), e-mail on or off, the address and whether it is confirmed (a link the server mails).
// The service worker (/sw.js) shows the pushes.

import { ApiError } from "../api.js";
import { h, mount } from "../dom.js";
import { currentLanguage, t } from "../i18n.js";

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

export const notifyApi = {
  key: () => call("GET", "/api/notify/key"),
  settings: () => call("GET", "/api/notify/settings"),
  save: (settings) => call("PUT", "/api/notify/settings", settings),
  subscribe: (subscription) => call("POST", "/api/notify/subscriptions", subscription),
  unsubscribe: (endpoint) => call("DELETE", `/api/notify/subscriptions?endpoint=${encodeURIComponent(endpoint)}`),
  verify: () => call("POST", "/api/notify/verify"),
};

/** The VAPID key (base64url) as PushManager wants it. */
function keyBytes(base64url) {
  const b64 = base64url.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (base64url.length % 4)) % 4);
  return Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
}

function pushSupported() {
  return "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;
}

async function registration() {
  return navigator.serviceWorker.register("/sw.js", { scope: "/" });
}

/** This browser's push subscription, or null. */
async function currentSubscription() {
  if (!pushSupported()) return null;
  try {
    return await (await registration()).pushManager.getSubscription();
  } catch {
    return null;
  }
}

/** Subscribe this browser with the server's key and tell the server. */
async function subscribeHere() {
  const { key } = await notifyApi.key();
  if (!key) throw new Error(t("notify.push_unavailable"));
  if ((await Notification.requestPermission()) !== "granted") throw new Error(t("notify.push_denied"));
  const reg = await registration();
  const sub = await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(key) });
  await notifyApi.subscribe(sub.toJSON());
}

async function unsubscribeHere() {
  const sub = await currentSubscription();
  if (!sub) return;
  await notifyApi.unsubscribe(sub.endpoint).catch(() => {});
  await sub.unsubscribe().catch(() => {});
}

/** The section, filled once the settings have come. */
export function notificationsSection() {
  const status = h("div", { role: "status", "data-testid": "notify-status" });
  const body = h("div", { class: "account-form" }, h("p", { class: "muted" }, "…"));
  const section = h("section", {
    class: "account-control", id: "notifications", "aria-labelledby": "notify-title", "data-testid": "notify-settings",
  }, h("h3", { id: "notify-title" }, t("notify.title")), h("p", { class: "muted" }, t("notify.hint")), body, status);
  const say = (text, ok = true) => mount(status, text
    ? h(ok ? "p" : "div", ok ? { class: "ok-banner" } : { class: "error-banner", role: "alert" }, text) : null);
  load(body, say).catch((err) => say(err.message, false));
  return section;
}

async function load(body, say) {
  let settings = await notifyApi.settings();
  const here = await currentSubscription();
  const push = h("input", { type: "checkbox", id: "notify-push", "data-testid": "notify-push" });
  push.checked = Boolean(settings.push && here);
  const email = h("input", { type: "checkbox", id: "notify-email", "data-testid": "notify-email" });
  email.checked = settings.email;
  const address = h("input", {
    type: "email", id: "notify-address", maxlength: 254, autocomplete: "email", "data-testid": "notify-address",
    value: settings.address ?? "",
  });
  const state = h("p", { class: "muted", "data-testid": "notify-address-status" });
  const verify = h("button", { type: "button", class: "secondary", "data-testid": "notify-verify" }, t("notify.verify"));
  const save = h("button", { type: "submit", "data-testid": "notify-save" }, t("notify.save"));
  const show = () => {
    const confirmed = settings.verified && settings.address === address.value.trim();
    mount(state, !settings.address ? null
      : confirmed ? h("span", { class: "ok-text" }, "✓ ", t("notify.verified"))
        : settings.pending ? t("notify.pending") : t("notify.unverified"));
    verify.hidden = !settings.mail_available || !address.value.trim() || confirmed;
    email.disabled = !settings.mail_available;
    address.disabled = !settings.mail_available;
  };
  const store = async () => {
    settings = await notifyApi.save({
      push: push.checked, email: email.checked, address: address.value.trim() || null,
    });
    show();
  };
  push.addEventListener("change", async () => {
    push.disabled = true;
    try {
      if (push.checked) {
        if (!pushSupported()) throw new Error(t("notify.push_unsupported"));
        await subscribeHere();
      } else {
        await unsubscribeHere();
      }
      await store();
      say(t("notify.saved"));
    } catch (err) {
      push.checked = false;
      // the browser's own refusals (a DOMException: no push service, a policy) are not in
      // the reader's language: say it in ours
      say(err instanceof DOMException || !err.message ? t("notify.push_failed") : err.message, false);
    } finally {
      push.disabled = false;
    }
  });
  const form = h("form", { class: "account-form", novalidate: true, "data-testid": "notify-form" },
    h("label", { class: "check", for: "notify-email" }, email, " ", t("notify.email")),
    h("label", { for: "notify-address" }, t("notify.address"), address),
    state,
    h("div", { class: "row-inline" }, save, verify),
    settings.mail_available ? null : h("p", { class: "muted" }, t("notify.mail_unavailable")));
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    save.disabled = true;
    try {
      await store();
      say(t("notify.saved"));
    } catch (err) {
      say(err.message, false);
    } finally {
      save.disabled = false;
    }
  });
  verify.addEventListener("click", async () => {
    verify.disabled = true;
    try {
      if (settings.address !== (address.value.trim() || null)) await store();
      const res = await notifyApi.verify();
      settings = await notifyApi.settings();
      show();
      say(res.ok ? t("notify.sent", { address: settings.address }) : t("notify.not_sent"), res.ok);
    } catch (err) {
      say(err.message, false);
    } finally {
      verify.disabled = false;
    }
  });
  address.addEventListener("input", show);
  show();
  mount(body,
    h("label", { class: "check", for: "notify-push" }, push, " ", t("notify.push")),
    pushSupported() ? null : h("p", { class: "muted" }, t("notify.push_unsupported")),
    form);
}
