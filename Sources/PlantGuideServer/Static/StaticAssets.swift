/// The stylesheet and script, served from `/static/`. They are small, so they ship inside the binary
/// rather than as files that could go missing from an installation.
enum StaticAssets {
    /// Bumped when the assets change, so browsers that cached them fetch the new ones.
    static let version = "4"

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
    a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible, summary:focus-visible {
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
    nav.tabs a[aria-current="page"] { background: rgba(255,255,255,.22); text-decoration: underline; }
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
    input[type=text], input[type=search], input[type=password], select {
      width: 100%; max-width: 32rem; font: inherit; padding: .55rem .6rem; border: 1px solid #7a877f; border-radius: .4rem;
      background: #fff; color: var(--ink); }
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
    .visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
    @media (min-width: 48rem) {
      h1 { font-size: 2rem; }
      .columns { display: grid; grid-template-columns: 22rem 1fr; gap: 1.5rem; align-items: start; }
    }
    """#

    static let script = #"""
    // Progressive enhancement only: every page works without this file.
    (function () {
      "use strict";
      function updateOnline() { document.body.classList.toggle("offline", !navigator.onLine); }
      window.addEventListener("online", updateOnline);
      window.addEventListener("offline", updateOnline);
      updateOnline();

      // Identify: show the loading state while the photo uploads and is identified.
      document.querySelectorAll("form[data-loading]").forEach(function (form) {
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
    })();
    """#
}
