import Foundation

/// What makes the web app installable: the web app manifest ("Add to Home Screen" gives an app icon that
/// opens PlantGuide full screen) and a service worker that keeps the static assets, and the catalog pages
/// already visited, for use without a connection to the server.
enum InstallableApp {
    /// The theme colour: the header's green.
    static let themeColor = "#1f6b3f"

    /// `GET /manifest.webmanifest`.
    static let manifest = #"""
    {
      "name": "PlantGuide",
      "short_name": "PlantGuide",
      "description": "Identify a plant from a photo and learn how to keep it alive.",
      "id": "/",
      "start_url": "/identify",
      "scope": "/",
      "display": "standalone",
      "orientation": "portrait",
      "background_color": "#fbfcfa",
      "theme_color": "\#(themeColor)",
      "categories": ["lifestyle", "education"],
      "icons": [
        { "src": "/static/icon-192.png", "sizes": "192x192", "type": "image/png", "purpose": "any" },
        { "src": "/static/icon-512.png", "sizes": "512x512", "type": "image/png", "purpose": "any" },
        { "src": "/static/icon-maskable-512.png", "sizes": "512x512", "type": "image/png", "purpose": "maskable" }
      ],
      "shortcuts": [
        { "name": "Identify a plant", "url": "/identify" },
        { "name": "Care due", "url": "/care" }
      ]
    }
    """#

    /// `GET /sw.js`, served from the root so its scope is the whole app. Static assets: cache first (their
    /// addresses carry the asset version). Catalog pages: network first, the cached copy when the server cannot be
    /// reached. Everything else (identification, the collection, care, settings, log-in) always goes to the server.
    static let serviceWorker = #"""
    // PlantGuide's service worker: see Sources/PlantGuideServer/Static/InstallableApp.swift.
    "use strict";
    var STATIC = "plantguide-static-\#(StaticAssets.version)";
    var PAGES = "plantguide-pages-\#(StaticAssets.version)";
    var ASSETS = [
      "/static/app.css?v=\#(StaticAssets.version)", "/static/app.js?v=\#(StaticAssets.version)",
      "/static/icon-192.png", "/static/icon-512.png", "/manifest.webmanifest"
    ];
    self.addEventListener("install", function (event) {
      event.waitUntil(caches.open(STATIC).then(function (cache) { return cache.addAll(ASSETS); })
        .then(function () { return self.skipWaiting(); }));
    });
    self.addEventListener("activate", function (event) {
      event.waitUntil(caches.keys().then(function (names) {
        return Promise.all(names.filter(function (name) { return name !== STATIC && name !== PAGES; })
          .map(function (name) { return caches.delete(name); }));
      }).then(function () { return self.clients.claim(); }));
    });
    function isCatalogPage(url) {
      return url.pathname === "/browse" || url.pathname.indexOf("/plants/") === 0;
    }
    // Care reminders (Web Push): the day's digest as a notification; a tap opens the Care page (an open window of the
    // app when there is one).
    self.addEventListener("push", function (event) {
      var message = {};
      try { message = event.data ? event.data.json() : {}; } catch (e) { message = { body: event.data ? event.data.text() : "" }; }
      var actions = message.actions && message.actions.done && message.actions.tomorrow
        ? [{ action: "done", title: "Done" }, { action: "tomorrow", title: "Tomorrow" }] : [];
      event.waitUntil(self.registration.showNotification(message.title || "PlantGuide", {
        body: message.body || "Care is due today.", tag: "plantguide-care", renotify: true,
        icon: "/static/icon-192.png", badge: "/static/icon-192.png", actions: actions,
        data: { url: message.url || "/care", day: message.day || null, actions: message.actions || null }
      }));
    });
    // "Done" and "Tomorrow" send the reminder's signed token back; nothing opens. When that fails, say so.
    function act(token) {
      return fetch("/reminders/act", {
        method: "POST", credentials: "omit", headers: { "Content-Type": "application/json", "Accept": "application/json" },
        body: JSON.stringify({ token: token })
      }).then(function (response) {
        if (!response.ok) { throw new Error("HTTP " + response.status); }
      }).catch(function () {
        return self.registration.showNotification("PlantGuide", {
          body: "That did not reach PlantGuide: open the Care page to mark the care.", tag: "plantguide-care",
          data: { url: "/care" }
        });
      });
    }
    self.addEventListener("notificationclick", function (event) {
      event.notification.close();
      var data = event.notification.data || {};
      if (event.action && data.actions && data.actions[event.action]) {
        event.waitUntil(act(data.actions[event.action]));
        return;
      }
      var target = new URL((event.notification.data && event.notification.data.url) || "/care", self.location.origin);
      if (target.origin !== self.location.origin) { target = new URL("/care", self.location.origin); }
      event.waitUntil(self.clients.matchAll({ type: "window", includeUncontrolled: true }).then(function (windows) {
        for (var i = 0; i < windows.length; i++) {
          if ("focus" in windows[i] && "navigate" in windows[i]) {
            return windows[i].navigate(target.href).then(function (client) { return client && client.focus(); });
          }
        }
        return self.clients.openWindow(target.href);
      }));
    });
    self.addEventListener("fetch", function (event) {
      var request = event.request;
      if (request.method !== "GET") { return; }
      var url = new URL(request.url);
      if (url.origin !== self.location.origin) { return; }
      if (url.pathname.indexOf("/static/") === 0 || url.pathname === "/manifest.webmanifest") {
        event.respondWith(caches.match(request).then(function (hit) { return hit || fetch(request); }));
        return;
      }
      if (request.mode === "navigate" && isCatalogPage(url)) {
        event.respondWith(fetch(request).then(function (response) {
          if (response.ok) {
            var copy = response.clone();
            caches.open(PAGES).then(function (cache) { cache.put(request, copy); });
          }
          return response;
        }).catch(function () {
          return caches.match(request).then(function (hit) { return hit || Response.error(); });
        }));
      }
    });
    """#
}
