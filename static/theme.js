// The light/dark choice made with the page's theme switch, applied before the page is drawn.
// Without a choice the page follows the system setting (prefers-color-scheme).
(function () {
  "use strict";
  try {
    var theme = window.localStorage.getItem("ap:theme");
    if (theme === "light" || theme === "dark") {
      document.documentElement.setAttribute("data-theme", theme);
    }
  } catch (e) {
    // storage refused (private mode, policy): the system setting applies
  }
}());
