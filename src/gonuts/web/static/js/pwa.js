// The installable app: registers the service worker (/sw.js) once the page has loaded, so
// the game can be added to a home screen and shows a clear "you are offline" page instead
// of a browser error when the network is gone. Nothing else depends on it: a browser
// without service workers (or one that refuses them) plays exactly the same.

if ("serviceWorker" in navigator) {
  window.addEventListener("load", () => {
    navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => {
      // a refused registration (private mode, a policy) only costs the offline page
    });
  });
}
