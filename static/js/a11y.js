// After an htmx swap: say what happened in the page's live region, and put focus on the new content when the
// swap took it away (the focused button was replaced) or when a link opened content elsewhere on the page.
// No framework, no inline script (the CSP forbids it): base.html loads this file on every page.
(function () {
  "use strict";

  var LIVE = '[aria-live], [role="status"], [role="alert"], [role="log"]';
  var CONTROLS = "button, a[href], input[type=submit]";
  var FOCUSABLE = "a[href], button, input, select, textarea, summary, [tabindex]";
  var pending = { polite: [], assertive: [] };
  var timer = null;

  function clean(text) {
    return (text || "").replace(/\s+/g, " ").trim();
  }

  // The words of a status message, then the actions it offers: "Accepted: <the memory>. Undo".
  function spoken(node) {
    if (node.getAttribute("data-announce")) return clean(node.getAttribute("data-announce"));
    var copy = node.cloneNode(true);
    var actions = [];
    Array.prototype.forEach.call(copy.querySelectorAll(CONTROLS), function (control) {
      var label = clean(control.getAttribute("aria-label") || control.textContent);
      if (label) actions.push(label);
      control.remove();
    });
    var words = clean(copy.textContent).replace(/[:;,]$/, "");
    if (!actions.length) return words;
    return (words ? words.replace(/\.$/, "") + ". " : "") + actions.join(", ");
  }

  function say(message, urgency) {
    if (!message) return;
    var queue = pending[urgency];
    if (queue.indexOf(message) < 0) queue.push(message);
    clearTimeout(timer);
    // Out-of-band swaps of one response settle one after another: speak once, when they are all in.
    timer = setTimeout(flush, 60);
  }

  function flush() {
    ["polite", "assertive"].forEach(function (urgency) {
      var region = document.getElementById(urgency === "polite" ? "a11y-live" : "a11y-alert");
      var text = pending[urgency].join(" ");
      pending[urgency] = [];
      if (!region || !text) return;
      // Emptied first so that the same words twice in a row ("Accepted" for two cards) are spoken twice.
      region.textContent = "";
      setTimeout(function () { region.textContent = text; }, 30);
    });
  }

  // Messages inside the new content, unless a live region of the page holds it (then that region speaks).
  // ``kept`` is true when the content went into an element that stays (innerHTML), false when it replaced one.
  function announce(root, kept) {
    var start = kept ? root : root.parentElement;
    var outer = start && start.closest(LIVE);
    if (outer && outer.id !== "a11y-live" && outer.id !== "a11y-alert") return;
    var nodes = root.matches('[role="status"], [role="alert"], [data-announce]') ? [root] : [];
    nodes = nodes.concat(Array.prototype.slice.call(root.querySelectorAll('[role="status"], [role="alert"], [data-announce]')));
    nodes.forEach(function (node) {
      say(spoken(node), node.getAttribute("role") === "alert" ? "assertive" : "polite");
    });
  }

  function focusOn(root) {
    var target = root.querySelector('[aria-invalid="true"]') || root;
    if (!target.matches(FOCUSABLE)) target.setAttribute("tabindex", "-1");
    target.focus({ preventScroll: true });
    if (target.scrollIntoView) target.scrollIntoView({ block: "nearest" });
  }

  function lostFocus() {
    var active = document.activeElement;
    return !active || active === document.body || !document.body.contains(active);
  }

  // Did the swap take the focus away? Only when the focus was inside what it replaced (the button of a form that
  // re-renders). Content that arrives on its own (a panel loading with the page, the Review badge refreshing)
  // never takes the focus: it pulled a keyboard user away from the top of the page, or from the form they used.
  var focusWasIn = new WeakMap();
  document.addEventListener("htmx:beforeSwap", function (event) {
    var target = event.detail && event.detail.target;
    var active = document.activeElement;
    if (event.detail.xhr && target && active && active !== document.body) {
      focusWasIn.set(event.detail.xhr, target.contains(active));
    }
  });

  document.addEventListener("htmx:afterSettle", function (event) {
    var root = event.target;
    if (!root || !root.isConnected || root === document.body) return;
    announce(root, root === (event.detail && event.detail.target));
    var trigger = event.detail && event.detail.requestConfig && event.detail.requestConfig.elt;
    var opened = trigger && trigger.tagName === "A" && trigger.isConnected && !root.contains(trigger);
    var tookFocus = event.detail.xhr && focusWasIn.get(event.detail.xhr);
    if ((tookFocus && lostFocus()) || (opened && document.activeElement === trigger)) focusOn(root);
  });

  // A table wider than a phone scrolls sideways; with no link or button inside, the keyboard could not reach
  // it to scroll, so such a table becomes a tab stop (arrow keys then scroll it).
  function scrollables() {
    Array.prototype.forEach.call(document.querySelectorAll(".table"), function (table) {
      var wide = table.scrollWidth > table.clientWidth + 1;
      if (wide && !table.hasAttribute("tabindex") && !table.querySelector(FOCUSABLE)) {
        table.setAttribute("tabindex", "0");
        table.setAttribute("data-scroll-stop", "");
      } else if (!wide && table.hasAttribute("data-scroll-stop")) {
        table.removeAttribute("tabindex");
        table.removeAttribute("data-scroll-stop");
      }
    });
  }
  var resizing = null;
  window.addEventListener("resize", function () { clearTimeout(resizing); resizing = setTimeout(scrollables, 100); });
  document.addEventListener("htmx:afterSettle", scrollables);
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", scrollables);
  else scrollables();

  document.addEventListener("htmx:responseError", function (event) {
    var xhr = event.detail && event.detail.xhr;
    say("That did not work" + (xhr && xhr.status ? " (error " + xhr.status + ")" : "") + ". Please try again.", "assertive");
  });

  document.addEventListener("htmx:sendError", function () {
    say("The server could not be reached. Please try again.", "assertive");
  });
})();
