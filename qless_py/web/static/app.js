// qless-py dashboard: live refresh, and the namespace picker's switch on change. Pages
// work without this script; it only fetches the page again every few seconds and swaps in
// the parts marked data-live (same ids), so counts and lists follow the server without a
// reload. The "live" box turns it off (remembered per browser). Nothing here builds HTML
// from data: the new parts are the server's own escaped markup, parsed as an inert
// document and moved in.
(function () {
  "use strict";
  var period = parseInt(document.body.getAttribute("data-refresh"), 10) || 5000;
  var box = document.getElementById("live");
  var timer = null;
  var busy = false;

  function enabled() {
    try { return window.localStorage.getItem("qlpy-live") !== "off"; } catch (e) { return true; }
  }

  function typing() {
    var active = document.activeElement;
    return active && /^(INPUT|TEXTAREA|SELECT)$/.test(active.tagName) && active.type !== "checkbox";
  }

  function swap(html) {
    var fresh = new DOMParser().parseFromString(html, "text/html");
    document.querySelectorAll("[data-live]").forEach(function (old) {
      var next = old.id && fresh.getElementById(old.id);
      if (next) { old.replaceWith(document.adoptNode(next)); }
    });
    document.documentElement.setAttribute("data-refreshed", String(Date.now()));
  }

  function tick() {
    if (busy || document.hidden || typing() || !enabled()) { return; }
    busy = true;
    fetch(window.location.href, { headers: { "Accept": "text/html", "X-Qlpy-Live": "1" },
                                  credentials: "same-origin" })
      .then(function (response) { return response.ok ? response.text() : null; })
      .then(function (html) { if (html) { swap(html); } })
      .catch(function () { /* the next tick tries again */ })
      .finally(function () { busy = false; });
  }

  if (box) {
    box.parentElement.hidden = false;
    box.checked = enabled();
    box.addEventListener("change", function () {
      try { window.localStorage.setItem("qlpy-live", box.checked ? "on" : "off"); } catch (e) { /* private mode */ }
    });
  }
  // The namespace picker switches as soon as another namespace is chosen (its button
  // does the same without this script).
  document.querySelectorAll("form.picker select").forEach(function (select) {
    select.addEventListener("change", function () { select.form.submit(); });
  });
  // Once a form is sent the page is on its way out: no more refreshes of it (the answer's
  // page carries the action's message, and a refresh racing it would only waste a call).
  function stop() { window.clearInterval(timer); }
  timer = window.setInterval(tick, period);
  document.addEventListener("submit", stop);
  window.addEventListener("pagehide", stop);
})();
