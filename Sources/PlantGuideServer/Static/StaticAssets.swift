/// The stylesheet and script, served from `/static/`. They are small, so they ship inside the binary
/// rather than as files that could go missing from an installation.
enum StaticAssets {
    /// Bumped when the assets change, so browsers that cached them fetch the new ones.
    static let version = "11"

    static let stylesheet: String = baseStylesheet + widthClasses

    /// `.pct-0` … `.pct-100`: confidence bar widths without inline styles, which the CSP forbids.
    private static let widthClasses: String = (0...100).map { ".pct-\($0){width:\($0)%}" }.joined(separator: "\n")

    private static let baseStylesheet = #"""
    :root {
      --ink: #1d2521; --muted: #4d5a52; --paper: #fbfcfa; --card: #ffffff; --line: #d5ddd7;
      --accent: #1f6b3f; --accent-ink: #ffffff; --focus: #0b57d0;
      --high: #2e7d32; --mid: #b88600; --low: #c62828; --warn-bg: #fff4d6; --error-bg: #fde8e8;
    }
    * { box-sizing: border-box; }
    html { font-size: 100%; }
    body { margin: 0; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; line-height: 1.5;
      color: var(--ink); background: var(--paper); }
    a { color: var(--accent); }
    a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible, textarea:focus-visible, summary:focus-visible {
      outline: 3px solid var(--focus); outline-offset: 2px; }
    .skip { position: absolute; left: -999px; top: 0; background: var(--card); padding: .5rem; z-index: 10; }
    .skip:focus { left: .5rem; }
    header.site { background: var(--accent); color: var(--accent-ink); }
    header.site .inner { max-width: 64rem; margin: 0 auto; padding: .5rem 1rem; display: flex; flex-wrap: wrap;
      align-items: center; gap: .25rem 1rem; }
    header.site .brand { color: var(--accent-ink); font-weight: 700; font-size: 1.15rem; text-decoration: none; }
    nav.tabs ul { list-style: none; margin: 0; padding: 0; display: flex; flex-wrap: wrap; gap: .25rem; }
    nav.tabs a { display: block; padding: .4rem .6rem; border-radius: .4rem; color: var(--accent-ink);
      text-decoration: none; font-weight: 500; }
    nav.tabs a[aria-current="page"] { background: rgba(0,0,0,.28); text-decoration: underline; }
    header.site form { margin: 0 0 0 auto; }
    header.site form button { background: transparent; color: var(--accent-ink); border: 1px solid rgba(255,255,255,.6); }
    main { max-width: 64rem; margin: 0 auto; padding: 1rem; }
    h1 { font-size: 1.6rem; margin: .5rem 0 1rem; line-height: 1.25; }
    h2 { font-size: 1.25rem; margin: 1.5rem 0 .5rem; }
    footer.site { max-width: 64rem; margin: 2rem auto 1rem; padding: 0 1rem; color: var(--muted); font-size: .875rem; }
    .badge { display: inline-block; min-width: 1.6rem; padding: .05rem .5rem; border-radius: 1rem; background: var(--accent);
      color: var(--accent-ink); font-size: .85rem; font-weight: 600; text-align: center; vertical-align: middle; }
    .badge.db { background: #e3f1e8; color: #174f2e; border: 1px solid #9cc8ad; }
    .badge.source { background: #e8eef8; color: #1c3d6e; border: 1px solid #a9bde0; }
    .notice { border: 1px solid var(--line); border-left: 6px solid var(--mid); background: var(--warn-bg);
      padding: .75rem 1rem; border-radius: .4rem; margin: 1rem 0; }
    .notice.error { border-left-color: var(--low); background: var(--error-bg); }
    .notice.ok { border-left-color: var(--high); background: #e9f5ec; }
    .notice h2 { margin-top: 0; font-size: 1.1rem; }
    .card h2 { margin-top: 0; }
    .card { background: var(--card); border: 1px solid var(--line); border-radius: .6rem; padding: 1rem; margin: 1rem 0; }
    label { display: block; font-weight: 600; margin: .75rem 0 .25rem; }
    input[type=text], input[type=search], input[type=password], input[type=url], select {
      width: 100%; max-width: 32rem; font: inherit; padding: .55rem .6rem; border: 1px solid #7a877f; border-radius: .4rem;
      background: #fff; color: var(--ink); }
    input[type=time], input[type=number] { font: inherit; padding: .45rem .5rem; border: 1px solid #7a877f;
      border-radius: .4rem; background: #fff; color: var(--ink); }
    input[type=file] { font: inherit; max-width: 100%; }
    button, .button { display: inline-block; font: inherit; font-weight: 600; padding: .55rem 1rem; border-radius: .4rem;
      border: 1px solid var(--accent); background: var(--accent); color: var(--accent-ink); cursor: pointer; text-decoration: none; }
    button.secondary, .button.secondary { background: #fff; color: var(--accent); }
    button[disabled] { opacity: .6; cursor: progress; }
    .row { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; }
    form.search { display: flex; flex-wrap: wrap; gap: .5rem; align-items: end; }
    form.search label { width: 100%; margin-bottom: 0; }
    form.search input { flex: 1 1 12rem; }
    .chips { display: flex; flex-wrap: wrap; gap: .4rem; margin: 1rem 0; padding: 0; list-style: none; }
    .chip { display: inline-block; padding: .3rem .75rem; border: 1px solid var(--accent); border-radius: 1rem;
      color: var(--accent); text-decoration: none; font-size: .9rem; background: #fff; }
    .chip[aria-current="page"] { background: var(--accent); color: var(--accent-ink); }
    .az { display: flex; flex-wrap: wrap; gap: .15rem; list-style: none; padding: 0; margin: .5rem 0; }
    .az a { display: inline-block; min-width: 2rem; padding: .2rem; text-align: center; }
    ul.plants, ol.plants { list-style: none; padding: 0; margin: 0; }
    .plants li { border-bottom: 1px solid var(--line); padding: .55rem 0; }
    .plants li a { font-weight: 600; }
    .meta { display: block; color: var(--muted); font-size: .875rem; }
    .sci { font-style: italic; }
    ol.results { list-style: none; padding: 0; margin: 0; }
    ol.results li { background: var(--card); border: 1px solid var(--line); border-radius: .6rem; padding: .75rem; margin: .5rem 0; }
    .rank { display: inline-block; width: 2rem; height: 2rem; line-height: 2rem; text-align: center; border-radius: 50%;
      background: #eef2ef; font-weight: 700; margin-right: .5rem; }
    .bar { height: .75rem; background: #e4e8e5; border-radius: .4rem; overflow: hidden; margin: .35rem 0 .15rem; max-width: 24rem; }
    .bar > span { display: block; height: 100%; }
    .bar .high { background: var(--high); } .bar .mid { background: var(--mid); } .bar .low { background: var(--low); }
    .confidence { font-variant-numeric: tabular-nums; font-weight: 600; }
    .photo { max-width: 100%; width: 22rem; border-radius: .6rem; border: 1px solid var(--line); display: block; }
    .grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(9.5rem, 1fr)); gap: .75rem; list-style: none; padding: 0; }
    .grid li { background: var(--card); border: 1px solid var(--line); border-radius: .6rem; overflow: hidden; }
    .grid img { width: 100%; aspect-ratio: 1; object-fit: cover; display: block; }
    .grid .body { padding: .5rem; }
    form.card > label:first-of-type { margin-top: 0; }
    .grid.photos .body { gap: .35rem; }
    .grid.photos form { margin: 0; }
    button.small, select.small { padding: .3rem .6rem; font-size: .875rem; width: auto; }
    button.danger { background: var(--low); border-color: var(--low); }
    dl.facts { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: .25rem 1rem; margin: .5rem 0; }
    dl.facts dt { font-weight: 600; }
    dl.facts dd { margin: 0; }
    ul.tasks .row { margin-top: .35rem; }
    ul.tasks form { margin: 0; }
    .badge.overdue { background: var(--low); }
    ul.events { padding-left: 1.25rem; }
    .notes { white-space: pre-line; border-left: 4px solid var(--line); padding-left: .75rem; }
    textarea { width: 100%; max-width: 32rem; font: inherit; padding: .55rem .6rem; border: 1px solid #7a877f;
      border-radius: .4rem; background: #fff; color: var(--ink); }
    .thumb-missing { aspect-ratio: 1; background: #e4ece6; display: flex; align-items: center; justify-content: center; color: var(--muted); }
    table { border-collapse: collapse; width: 100%; max-width: 40rem; }
    th, td { text-align: left; padding: .4rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
    .loading { display: none; }
    .is-loading .loading { display: block; }
    .spinner { display: inline-block; width: 1rem; height: 1rem; border: 3px solid #c9d6cd; border-top-color: var(--accent);
      border-radius: 50%; animation: spin 1s linear infinite; vertical-align: middle; margin-right: .4rem; }
    @keyframes spin { to { transform: rotate(360deg); } }
    @media (prefers-reduced-motion: reduce) { .spinner { animation: none; } }
    .offline-banner { display: none; background: #333; color: #fff; padding: .4rem 1rem; text-align: center; }
    body.offline .offline-banner { display: block; }
    fieldset { border: 1px solid var(--line); border-radius: .6rem; padding: .25rem 1rem 1rem; margin: 0; min-width: 0; }
    legend { font-weight: 700; padding: 0 .25rem; }
    ol.previews { list-style: none; padding: 0; margin: .75rem 0 0; display: grid; gap: .75rem;
      grid-template-columns: repeat(auto-fill, minmax(7.5rem, 1fr)); }
    ol.previews:empty { display: none; }
    .previews li { border: 1px solid var(--line); border-radius: .6rem; padding: .5rem; background: #fff; }
    .previews img { width: 100%; aspect-ratio: 1; object-fit: cover; border-radius: .4rem; display: block; }
    .previews label { font-size: .875rem; margin: .4rem 0 .2rem; }
    .previews select { font-size: .875rem; padding: .35rem; }
    .previews button { margin-top: .4rem; padding: .3rem .6rem; font-size: .875rem; width: 100%; }
    .has-previews #organ-all { display: none; }
    progress { width: 100%; max-width: 24rem; height: 1rem; accent-color: var(--accent); }
    ul.sent-photos { list-style: none; padding: 0; margin: 0 0 .75rem; display: grid; gap: .5rem;
      grid-template-columns: repeat(3, 1fr); }
    ul.sent-photos li:first-child { grid-column: 1 / -1; }
    ul.sent-photos figure { margin: 0; }
    ul.sent-photos img { width: 100%; aspect-ratio: 1; object-fit: cover; border-radius: .6rem; border: 1px solid var(--line); display: block; }
    ul.sent-photos li:first-child img { aspect-ratio: auto; max-height: 28rem; }
    ul.sent-photos figcaption { font-size: .8rem; color: var(--muted); }
    ul.references { list-style: none; padding: 0; margin: .25rem 0 0; display: grid; gap: .4rem;
      grid-template-columns: repeat(4, minmax(0, 1fr)); max-width: 28rem; }
    ul.references figure { margin: 0; }
    ul.references img { width: 100%; aspect-ratio: 1; object-fit: cover; border-radius: .4rem; border: 1px solid var(--line); display: block; }
    ul.references figcaption { font-size: .7rem; color: var(--muted); line-height: 1.25; overflow-wrap: break-word; hyphens: auto; }
    .icon { width: 1.2em; height: 1.2em; vertical-align: -.25em; margin-right: .3em; flex: none; }
    .chip .icon { margin-right: .25em; }
    .subtitle { margin: -.75rem 0 1rem; font-size: 1.1rem; color: var(--muted); }
    h3 { font-size: 1.05rem; margin: 1rem 0 .25rem; }
    .cards { display: grid; gap: 0 1rem; grid-template-columns: repeat(auto-fit, minmax(min(100%, 20rem), 1fr)); align-items: start; }
    dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .4rem 1rem; margin: 0; }
    dl.facts dt { font-weight: 600; }
    dl.facts dd { margin: 0; min-width: 0; overflow-wrap: anywhere; }
    ul.season { margin: 0; padding-left: 1.25rem; }
    .add-plant { max-width: 40rem; }
    .pager { display: flex; flex-wrap: wrap; align-items: center; gap: .5rem; margin: 1.25rem 0; }
    .pager ol { display: flex; flex-wrap: wrap; gap: .25rem; list-style: none; margin: 0; padding: 0; order: 3; flex-basis: 100%; }
    .pager .next { margin-left: auto; }
    .pager ol a, .pager ol li { display: inline-block; min-width: 2.25rem; padding: .35rem .5rem; text-align: center;
      border-radius: .4rem; }
    .pager ol a { border: 1px solid var(--line); background: #fff; }
    .pager ol a[aria-current="page"] { background: var(--accent); color: var(--accent-ink); border-color: var(--accent); font-weight: 700; }
    .pager [aria-disabled="true"] { opacity: .45; cursor: default; }
    .visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
    @media (min-width: 60rem) {
      /* A plant's page: photos, its history and the edit form beside its care. */
      .plant-page { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); column-gap: 2rem;
        grid-template-areas: "photos care" "history care" "edit care"; grid-template-rows: auto auto 1fr; align-items: start; }
      .photos-part { grid-area: photos; } .care-part { grid-area: care; }
      .history-part { grid-area: history; } .edit-part { grid-area: edit; }
    }
    @media (min-width: 48rem) {
      h1 { font-size: 2rem; }
      .columns { display: grid; grid-template-columns: 22rem 1fr; gap: 1.5rem; align-items: start; }
      .pager ol { order: 0; flex-basis: auto; }
      .pager .next { margin-left: 0; }
    }
    """#

    static let script = #"""
    // Progressive enhancement only: every page works without this file.
    (function () {
      "use strict";
      // Installable: the service worker keeps the static assets and visited catalog pages for offline use.
      if ("serviceWorker" in navigator && window.isSecureContext) {
        navigator.serviceWorker.register("/sw.js").catch(function () { /* the app works without it */ });
      }
      function updateOnline() { document.body.classList.toggle("offline", !navigator.onLine); }
      window.addEventListener("online", updateOnline);
      window.addEventListener("offline", updateOnline);
      updateOnline();

      // Identify: thumbnails of the chosen photos (camera and library together, up to the limit), each with
      // what it shows; then an upload with progress, and on to the results page the server redirects to.
      var identify = document.querySelector("form[data-identify]");
      if (identify && window.FormData && window.XMLHttpRequest && window.URL && URL.createObjectURL) {
        setUpIdentify(identify);
      }

      function setUpIdentify(form) {
        var chosen = [], max = parseInt(form.getAttribute("data-max-photos"), 10) || 5;
        var maxBytes = parseInt(form.getAttribute("data-max-bytes"), 10) || 0;
        var list = document.getElementById("previews"), problem = document.getElementById("photo-error");
        var pickers = form.querySelectorAll("input[type=file]");
        var organTemplate = document.getElementById("organ");
        function say(text) { problem.textContent = text; problem.hidden = !text; }
        function render() {
          chosen.forEach(function (item) { if (item.url) { URL.revokeObjectURL(item.url); } });
          list.textContent = "";
          chosen.forEach(function (item, index) {
            item.url = URL.createObjectURL(item.file);
            var li = document.createElement("li");
            var img = document.createElement("img");
            img.src = item.url; img.alt = "Photo " + (index + 1) + ": " + item.file.name;
            var id = "organ-" + index;
            var label = document.createElement("label");
            label.setAttribute("for", id); label.textContent = "Photo " + (index + 1) + " shows";
            var select = organTemplate.cloneNode(true);
            select.id = id; select.removeAttribute("name"); select.value = item.organ;
            select.addEventListener("change", function () { item.organ = select.value; });
            var remove = document.createElement("button");
            remove.type = "button"; remove.className = "secondary"; remove.textContent = "Remove";
            remove.setAttribute("aria-label", "Remove photo " + (index + 1));
            remove.addEventListener("click", function () { chosen.splice(index, 1); render(); pickers[0].focus(); });
            li.appendChild(img); li.appendChild(label); li.appendChild(select); li.appendChild(remove);
            list.appendChild(li);
          });
          form.classList.toggle("has-previews", chosen.length > 0);
        }
        pickers.forEach(function (picker) {
          picker.addEventListener("change", function () {
            var files = Array.prototype.slice.call(picker.files || []);
            var room = max - chosen.length;
            say(files.length > room ? "At most " + max + " photos of one plant: " + (files.length - room) + " left out." : "");
            files.slice(0, Math.max(room, 0)).forEach(function (file) { chosen.push({ file: file, organ: organTemplate.value }); });
            picker.value = "";
            render();
          });
        });
        form.addEventListener("submit", function (event) {
          event.preventDefault();
          if (chosen.length === 0) { say("Choose or take a photo of the plant first."); pickers[0].focus(); return; }
          var bytes = chosen.reduce(function (sum, item) { return sum + item.file.size; }, 0);
          if (maxBytes && bytes > maxBytes) {
            say("These photos are " + Math.ceil(bytes / 1048576) + " MB; the limit is " + Math.floor(maxBytes / 1048576) + " MB. Remove one or send smaller photos.");
            return;
          }
          say("");
          var data = new FormData();
          form.querySelectorAll("input[type=hidden], select[name=strategy]").forEach(function (field) { data.append(field.name, field.value); });
          chosen.forEach(function (item) { data.append("photo", item.file, item.file.name); data.append("organ", item.organ); });
          var progress = document.getElementById("progress"), text = document.getElementById("progress-text");
          var button = form.querySelector("button[type=submit]");
          form.classList.add("is-loading"); form.setAttribute("aria-busy", "true");
          button.disabled = true; button.textContent = form.getAttribute("data-loading");
          progress.value = 0; text.textContent = "Uploading " + chosen.length + (chosen.length === 1 ? " photo…" : " photos…");
          var request = new XMLHttpRequest();
          request.open("POST", form.action);
          request.setRequestHeader("Accept", "text/html");
          request.upload.addEventListener("progress", function (e) {
            if (e.lengthComputable) { progress.value = Math.round(100 * e.loaded / e.total); }
          });
          request.upload.addEventListener("load", function () {
            progress.removeAttribute("value");
            text.textContent = "Identifying… this can take a few seconds.";
          });
          function restore() {
            form.classList.remove("is-loading"); form.removeAttribute("aria-busy");
            button.disabled = false; button.textContent = "Identify";
          }
          request.addEventListener("load", function () {
            if (request.status >= 200 && request.status < 300 && request.responseURL.indexOf("/identify/results/") >= 0) {
              window.location.assign(request.responseURL);
              return;
            }
            restore();
            var page = new DOMParser().parseFromString(request.responseText || "", "text/html");
            var message = page.querySelector("main .notice.error p, main .notice, main p");
            say(message ? message.textContent.trim() : "Identification failed (" + request.status + "). Try again.");
          });
          request.addEventListener("error", function () { restore(); say("The server could not be reached. Check the connection and try again."); });
          request.send(data);
        });
      }

      // Other forms that take a while: show the loading state.
      document.querySelectorAll("form[data-loading]:not([data-identify])").forEach(function (form) {
        form.addEventListener("submit", function () {
          form.classList.add("is-loading");
          form.setAttribute("aria-busy", "true");
          var button = form.querySelector("button[type=submit]");
          if (button) { button.disabled = true; button.textContent = form.getAttribute("data-loading"); }
        });
      });

      // Browse: search as you type, replacing the results with the server's own HTML fragment.
      var input = document.querySelector("input[data-live-search]");
      var results = document.getElementById("results");
      if (input && results) {
        var timer = null, latest = 0;
        input.addEventListener("input", function () {
          clearTimeout(timer);
          timer = setTimeout(function () {
            var form = input.form, params = new URLSearchParams(new FormData(form));
            params.set("partial", "1");
            var ticket = ++latest;
            fetch(form.action + "?" + params.toString(), { headers: { "Accept": "text/html" } })
              .then(function (response) { return response.ok ? response.text() : Promise.reject(response.status); })
              .then(function (html) {
                if (ticket !== latest) { return; }
                results.innerHTML = html;
                var count = results.querySelector("[data-count]");
                var badge = document.getElementById("count");
                if (count && badge) { badge.textContent = count.getAttribute("data-count"); }
                params.delete("partial");
                history.replaceState(null, "", form.action + "?" + params.toString());
              })
              .catch(function () { /* keep the old results; the form still works */ });
          }, 150);
        });
      }

      // Settings: a model download's progress, asked for once a second while it runs; the page reloads when it ends
      // (installed, failed or stopped), so what it shows then comes from the server.
      var install = document.querySelector("[data-model-install]");
      if (install && window.fetch) { followInstall(install); }

      function followInstall(box) {
        var bar = box.querySelector("progress"), text = box.querySelector("[data-install-text]");
        function tick() {
          fetch("/api/model/install", { headers: { "Accept": "application/json" }, credentials: "same-origin" })
            .then(function (response) { return response.ok ? response.json() : Promise.reject(response.status); })
            .then(function (status) {
              if (["downloading", "checking", "importing"].indexOf(status.state) < 0) { window.location.reload(); return; }
              if (status.totalBytes) { bar.max = status.totalBytes; bar.value = status.receivedBytes; } else { bar.removeAttribute("value"); }
              text.textContent = status.text;
              setTimeout(tick, 1000);
            })
            .catch(function () { setTimeout(tick, 3000); });
        }
        setTimeout(tick, 1000);
      }

      // Settings: a checkpoint from this device, sent as the request's body with upload progress; the server streams
      // it to disk, checks and imports it, and the page reloads to show the model in use (or says what went wrong).
      var upload = document.querySelector("form[data-model-upload]");
      if (upload && window.XMLHttpRequest) { setUpUpload(upload); }

      // Settings, "This browser": subscribe to push messages with the server's key and hand the subscription to the
      // server. Shown only where the browser can take them (a service worker and the Push API).
      var push = document.querySelector("[data-push-subscribe]");
      if (push && "serviceWorker" in navigator && "PushManager" in window && "Notification" in window) { setUpPush(push); }

      function setUpPush(block) {
        var button = block.querySelector("[data-push-button]"), status = block.querySelector("[data-push-status]");
        function say(message) { status.textContent = message; button.disabled = false; }
        function keyBytes(text) {
          var base64 = (text + "===".slice((text.length + 3) % 4)).replace(/-/g, "+").replace(/_/g, "/");
          var raw = window.atob(base64), bytes = new Uint8Array(raw.length);
          for (var i = 0; i < raw.length; i++) { bytes[i] = raw.charCodeAt(i); }
          return bytes;
        }
        block.hidden = false;
        button.addEventListener("click", function () {
          button.disabled = true;
          status.textContent = "Asking this browser for permission to show notifications…";
          Notification.requestPermission().then(function (permission) {
            if (permission !== "granted") { throw new Error("Notifications are blocked for this site: allow them in the browser's site settings."); }
            return navigator.serviceWorker.register("/sw.js").then(function () { return navigator.serviceWorker.ready; });
          }).then(function (registration) {
            status.textContent = "Subscribing…";
            return registration.pushManager.getSubscription().then(function (old) {
              return old ? old.unsubscribe() : true;
            }).then(function () {
              return registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(block.getAttribute("data-key")) });
            });
          }).then(function (subscription) {
            return new Promise(function (resolve, reject) {
              var request = new XMLHttpRequest();
              request.open("POST", "/settings/reminders/push");
              request.setRequestHeader("X-CSRF-Token", block.querySelector("input[name=_csrf]").value);
              request.setRequestHeader("Content-Type", "application/json");
              request.setRequestHeader("Accept", "application/json");
              request.addEventListener("load", function () {
                if (request.status === 201) { resolve(); return; }
                var message = "The server refused the subscription (HTTP " + request.status + ").";
                try { message = JSON.parse(request.responseText).message || message; } catch (e) { /* keep the status */ }
                reject(new Error(message));
              });
              request.addEventListener("error", function () { reject(new Error("The server could not be reached.")); });
              request.send(JSON.stringify({ subscription: subscription.toJSON(), time: block.querySelector("#push-time").value }));
            });
          }).then(function () {
            window.location.assign("/settings?reminders=added#reminders");
          }).catch(function (error) {
            say(error && error.message ? error.message : "This browser could not subscribe.");
          });
        });
      }

      function setUpUpload(form) {
        var input = form.querySelector("input[type=file]"), bar = form.querySelector("progress");
        var text = form.querySelector("[data-upload-text]"), button = form.querySelector("button[type=submit]");
        function say(message) { bar.hidden = true; button.disabled = false; text.textContent = message; }
        form.hidden = false;
        form.addEventListener("submit", function (event) {
          event.preventDefault();
          var file = input.files && input.files[0];
          if (!file) { say("Choose a checkpoint file first."); input.focus(); return; }
          if (file.size > 1073741824) { say(file.name + " is larger than 1 GiB, the most a checkpoint can be."); return; }
          var request = new XMLHttpRequest();
          request.open("PUT", form.getAttribute("action") + "?name=" + encodeURIComponent(file.name));
          request.setRequestHeader("X-CSRF-Token", form.querySelector("input[name=_csrf]").value);
          request.setRequestHeader("Content-Type", "application/octet-stream");
          request.setRequestHeader("Accept", "application/json");
          bar.hidden = false; bar.max = file.size; bar.value = 0; button.disabled = true;
          request.upload.addEventListener("progress", function (e) {
            bar.value = e.loaded;
            text.textContent = "Uploading " + file.name + ": " + Math.round(100 * e.loaded / file.size) + " %";
          });
          request.upload.addEventListener("load", function () {
            bar.removeAttribute("value");
            text.textContent = "Checking and importing " + file.name + "…";
          });
          request.addEventListener("load", function () {
            if (request.status === 201) { window.location.reload(); return; }
            var message = "The upload was refused (HTTP " + request.status + ").";
            try { message = JSON.parse(request.responseText).message || message; } catch (e) { /* keep the status */ }
            say(message);
          });
          request.addEventListener("error", function () { say("The upload did not reach the server."); });
          request.send(file);
        });
      }
    })();
    """#
}
