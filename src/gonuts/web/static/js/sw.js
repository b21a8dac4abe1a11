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
