// The service worker (served as /sw.js, scope /). Deliberately small: it never caches the
// game (tables, API, sockets are always live); it only keeps the offline page and what
// that page needs, and shows it when a page cannot be fetched at all.

const CACHE = "gonuts-offline-v1";
const OFFLINE_PAGE = "/offline";
const OFFLINE_ASSETS = [
  OFFLINE_PAGE,
  "/static/css/offline.css",
  "/static/js/offline.js",
  "/static/img/donut.svg",
];

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches.open(CACHE).then((cache) => cache.addAll(OFFLINE_ASSETS)).then(() => self.skipWaiting()),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) => Promise.all(keys.filter((key) => key !== CACHE).map((key) => caches.delete(key))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.mode === "navigate") {
    // the network first, always: the offline page only when there is no answer at all
    event.respondWith(fetch(request).catch(() => caches.match(OFFLINE_PAGE)));
  } else if (OFFLINE_ASSETS.includes(url.pathname)) {
    event.respondWith(fetch(request).catch(() => caches.match(url.pathname)));
  }
  // everything else (API, sockets, the app's scripts) goes to the network untouched
});

// Notifications (server/notify/push.py sends them): a push's payload is JSON with a title, a
// body, the path to open and a tag (a newer notification about the same game replaces the
// older one). A push that is not JSON still shows something rather than nothing.
self.addEventListener("push", (event) => {
  let note = {};
  try {
    note = event.data ? event.data.json() : {};
  } catch {
    note = { body: event.data ? event.data.text() : "" };
  }
  const url = typeof note.url === "string" && note.url.startsWith("/") ? note.url : "/";
  event.waitUntil(
    self.registration.showNotification(note.title || "Go Nuts for Donuts", {
      body: note.body || "",
      tag: note.tag || "gonuts",
      renotify: Boolean(note.tag),
      icon: "/static/img/icon-192.png",
      badge: "/static/img/donut.svg",
      data: { url },
    }),
  );
});

// A click opens the game: a tab of the site already open is focused and sent there, else a
// new one opens.
self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const target = new URL(event.notification.data?.url || "/", self.location.origin).href;
  event.waitUntil(
    self.clients.matchAll({ type: "window", includeUncontrolled: true }).then((windows) => {
      for (const client of windows) {
        if (new URL(client.url).origin === self.location.origin && "focus" in client) {
          return client.focus().then((c) => (c && "navigate" in c ? c.navigate(target) : c));
        }
      }
      return self.clients.openWindow(target);
    }),
  );
});
