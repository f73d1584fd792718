// Review page keyboard: j/k move, a accept, r reject, e edit, s snooze, u undo, ? help. No framework; htmx does
// the requests (each action is a form the card already has, so the keyboard and the mouse do the same thing).
(function () {
  "use strict";
  var current = null;

  function cards() {
    return Array.prototype.slice.call(document.querySelectorAll("#review-panel .review-card:not(.decided)"));
  }

  function select(card) {
    if (current) current.classList.remove("current");
    current = card || null;
    if (current) {
      current.classList.add("current");
      current.focus({ preventScroll: true });
      current.scrollIntoView({ block: "nearest" });
    }
  }

  function move(step) {
    var list = cards();
    if (!list.length) return select(null);
    var i = list.indexOf(current);
    i = i < 0 ? 0 : Math.min(Math.max(i + step, 0), list.length - 1);
    select(list[i]);
  }

  function press(key) {
    if (!current || !document.body.contains(current)) move(0);
    if (!current) return;
    var button = current.querySelector('.review-actions button[data-key="' + key + '"]');
    if (button) button.click();
  }

  function open(selector, field) {
    if (!current || !document.body.contains(current)) move(0);
    if (!current) return;
    var details = current.querySelector(selector);
    if (!details) return;
    details.open = true;
    var input = details.querySelector(field);
    if (input) {
      input.focus();
      if (input.select) input.select();
    }
  }

  function typing(target) {
    var tag = (target && target.tagName) || "";
    return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || (target && target.isContentEditable);
  }

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) return;
    var help = document.getElementById("review-help");
    if (help.open && event.key !== "?") return; // the dialog handles Escape itself
    switch (event.key) {
      case "j": move(1); break;
      case "k": move(-1); break;
      case "a": press("a"); break;
      case "r": press("r"); break;
      case "e": open("details.edit", 'input[name="edit"]'); break;
      case "s": open("details.snooze", 'input[name="snooze_until"]'); break;
      case "u": document.getElementById("review-undo").click(); break;
      case "?": if (help.open) { help.close(); } else { help.showModal(); } break;
      default: return;
    }
    event.preventDefault();
  });

  // After a card is decided (swapped for its "decided" strip) select the next card; after the panel is redrawn
  // (undo, bulk, another tab) select the first. htmx:load fires on the new content, which is in the document.
  document.body.addEventListener("htmx:load", function (event) {
    var elt = event.detail.elt;
    if (!elt || !elt.classList) return;
    var lost = !current || !document.body.contains(current);
    if (elt.classList.contains("review-card")) {
      if (elt.classList.contains("decided")) {
        var list = cards();
        var next = list.filter(function (c) {
          return elt.compareDocumentPosition(c) & Node.DOCUMENT_POSITION_FOLLOWING;
        })[0];
        select(next || list[list.length - 1]);
      } else if (lost || current.id === elt.id) {
        select(elt);
      }
    } else if (lost && elt.closest && elt.closest("#review-panel")) {
      current = null;
      move(0);
    }
  });

  // Snooze defaults to a week from today.
  document.addEventListener("toggle", function (event) {
    var details = event.target;
    if (!details.classList || !details.classList.contains("snooze") || !details.open) return;
    var input = details.querySelector('input[name="snooze_until"]');
    if (input && !input.value) {
      var d = new Date(Date.now() + 7 * 86400000);
      input.value = d.toISOString().slice(0, 10);
    }
  }, true);

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", function () { move(0); });
  } else {
    move(0);
  }
})();
