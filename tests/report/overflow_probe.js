// Injected into a page by test_report_browser.py: after load, lists what runs out sideways at the window's width
// into <pre id="overflow-probe"> as JSON {viewport, scrollWidth, overflowing: [...]}. Something runs out when it
// sticks out of its card or table cell, when its own text is wider than its box, or when it ends past the window
// (content inside a box that scrolls sideways on purpose, like the coverage matrix, may be wider than the window).
(function () {
  function name(el) {
    var cls = typeof el.className === "string" && el.className.trim() ? "." + el.className.trim().split(/\s+/).join(".") : "";
    return el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") + cls;
  }
  function scrolls(el) {
    var x = getComputedStyle(el).overflowX;
    return x === "auto" || x === "scroll";
  }
  function scrolledAway(el) {
    for (var up = el.parentElement; up && up !== document.body; up = up.parentElement) {
      if (scrolls(up)) { return true; }
    }
    return false;
  }
  function what(el) { return (el.textContent || "").trim().replace(/\s+/g, " ").slice(0, 90); }
  function measure() {
    var width = document.documentElement.clientWidth, found = [];
    var boxes = document.querySelectorAll(".card, td, th");
    for (var i = 0; i < boxes.length; i++) {
      var box = boxes[i], outer = box.getBoundingClientRect(), inside = box.querySelectorAll("*");
      for (var j = -1; j < inside.length; j++) {
        var el = j < 0 ? box : inside[j], r = el.getBoundingClientRect(), style = getComputedStyle(el);
        if (r.width === 0 && r.height === 0) { continue; }
        var out = Math.max(r.right - outer.right, outer.left - r.left);
        if (el !== box && out > 1) {
          found.push(name(el) + " sticks out of its " + name(box) + " by " + Math.round(out) + " px: " + what(el));
        } else if (style.overflowX === "visible" && el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1) {
          found.push(name(el) + ": its content is " + (el.scrollWidth - el.clientWidth) + " px wider than its box: " + what(el));
        }
      }
    }
    var all = document.body.querySelectorAll("*");
    for (var k = 0; k < all.length; k++) {
      var right = all[k].getBoundingClientRect().right;
      if (right > width + 1 && !scrolledAway(all[k])) {
        found.push(name(all[k]) + " ends " + Math.round(right - width) + " px past the window: " + what(all[k]));
      }
    }
    var pre = document.createElement("pre");
    pre.id = "overflow-probe";
    pre.textContent = JSON.stringify({viewport: width, scrollWidth: document.documentElement.scrollWidth, overflowing: found});
    document.body.appendChild(pre);
  }
  if (document.readyState === "complete") { measure(); } else { window.addEventListener("load", measure); }
})();
