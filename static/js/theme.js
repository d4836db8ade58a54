/* Sawbones: the theme a person chose in this browser (localStorage "sawbones-theme":
 * "light" or "dark"; nothing stored means: follow the system setting). Loaded in <head>
 * before the stylesheet applies, so the page never flashes the other theme; the menu in
 * the header (base.html, [data-theme-pick]) changes it. */
(function () {
  "use strict";
  var KEY = "sawbones-theme";
  var root = document.documentElement;

  function stored() {
    try {
      var value = window.localStorage.getItem(KEY);
      return value === "light" || value === "dark" ? value : "";
    } catch (error) {
      return "";
    }
  }

  function apply(value) {
    if (value) root.dataset.theme = value;
    else delete root.dataset.theme;
  }

  apply(stored());

  document.addEventListener("DOMContentLoaded", function () {
    var pick = document.querySelector("[data-theme-pick]");
    if (!pick) return;
    var select = pick.querySelector("select");
    select.value = stored();
    pick.hidden = false;
    select.addEventListener("change", function () {
      try {
        if (select.value) window.localStorage.setItem(KEY, select.value);
        else window.localStorage.removeItem(KEY);
      } catch (error) {
        /* storage refused (private mode): the choice lasts for this page only */
      }
      apply(select.value);
    });
  });
})();
