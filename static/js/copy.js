// A button that copies a text field (data-copy: the field's id) and then says so (data-copied).
// A static file, not an onclick attribute: the Content-Security-Policy runs no inline handler.
(function () {
  "use strict";
  document.querySelectorAll("button[data-copy]").forEach(function (button) {
    button.addEventListener("click", function () {
      var field = document.getElementById(button.dataset.copy);
      if (!field) return;
      field.select();
      // Refused (no permission, no https)? The text stays selected for Ctrl+C.
      if (navigator.clipboard) navigator.clipboard.writeText(field.value).catch(function () {});
      button.textContent = button.dataset.copied;
    });
  });
})();
