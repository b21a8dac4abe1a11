// "Your turn" when you are elsewhere (issue 11 item 3): while it is your turn and the tab is
// hidden, the tab's title and icon say so (both come back when you do); an optional sound
// (off by default) and an optional browser notification (permission is asked only when you
// click to turn it on). Both choices are remembered in localStorage.

import { h } from "./dom.js";
import { t } from "./i18n.js";

const SOUND_KEY = "gonuts.attention.sound";
const NOTIFY_KEY = "gonuts.attention.notify";
const TURN_ICON = "/static/img/donut-turn.svg";

let myTurn = false;
let marked = null; // {title, icon} to restore, while the tab shows "your turn"
let audio = null;

function iconLink() {
  return /** @type {HTMLLinkElement|null} */ (document.querySelector("link[rel~='icon']"));
}

function hidden() {
  return document.visibilityState === "hidden";
}

export function soundOn() {
  return localStorage.getItem(SOUND_KEY) === "1";
}

export function notifyOn() {
  return localStorage.getItem(NOTIFY_KEY) === "1"
    && typeof Notification !== "undefined" && Notification.permission === "granted";
}

function mark() {
  if (marked) return;
  const link = iconLink();
  marked = { title: document.title, icon: link?.getAttribute("href") ?? null };
  document.title = `● ${t("attention.your_turn")} — ${marked.title}`;
  link?.setAttribute("href", TURN_ICON);
}

function unmark() {
  if (!marked) return;
  document.title = marked.title;
  if (marked.icon !== null) iconLink()?.setAttribute("href", marked.icon);
  marked = null;
}

function beep() {
  try {
    audio ??= new AudioContext();
    const osc = audio.createOscillator();
    const gain = audio.createGain();
    osc.frequency.value = 880;
    gain.gain.setValueAtTime(0.15, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.35);
    osc.connect(gain).connect(audio.destination);
    osc.start();
    osc.stop(audio.currentTime + 0.35);
  } catch {
    // no audio here: the title still says it
  }
}

function notify() {
  try {
    const note = new Notification(t("attention.your_turn"), {
      body: t("attention.notify_body"), tag: "gonuts-turn", icon: TURN_ICON,
    });
    note.onclick = () => { window.focus(); note.close(); };
  } catch {
    // some browsers only notify from a service worker: the title still says it
  }
}

/** Tell the page whether it is my turn now (after every state). */
export function setMyTurn(on) {
  const began = on && !myTurn;
  myTurn = on;
  if (!on) {
    unmark();
    return;
  }
  if (began && hidden()) {
    mark();
    if (soundOn()) beep();
    if (notifyOn()) notify();
  }
}

document.addEventListener("visibilitychange", () => {
  if (!hidden()) unmark();
  else if (myTurn) mark(); // left the tab while it was my turn
});

/** The sound and notification switches (for the table's header). */
export function attentionControls() {
  const sound = h("label", { class: "toggle pill" },
    h("input", {
      type: "checkbox", checked: soundOn(), "data-testid": "attention-sound",
      onchange: (e) => {
        localStorage.setItem(SOUND_KEY, e.target.checked ? "1" : "0");
        if (e.target.checked) {
          audio ??= new AudioContext(); // made on a click, so the browser lets it play later
        }
      },
    }),
    t("attention.sound"));
  const supported = typeof Notification !== "undefined";
  const note = supported
    ? h("label", { class: "toggle pill" },
        h("input", {
          type: "checkbox", checked: notifyOn(), "data-testid": "attention-notify",
          onchange: async (e) => {
            const box = e.target;
            if (!box.checked) {
              localStorage.setItem(NOTIFY_KEY, "0");
              return;
            }
            const answer = Notification.permission === "granted"
              ? "granted" : await Notification.requestPermission();
            localStorage.setItem(NOTIFY_KEY, answer === "granted" ? "1" : "0");
            box.checked = answer === "granted";
            if (answer !== "granted") box.parentElement.title = t("attention.notify_denied");
          },
        }),
        t("attention.notify"))
    : null;
  return [sound, note];
}
