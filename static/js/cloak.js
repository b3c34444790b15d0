// Cloak's own small behaviours on top of htmx. No framework, no build step.
"use strict";

// A successful upload adds its job row to the list (the server answers the row and fires
// this event); the form is then cleared for the next file, errors of an earlier try included.
document.addEventListener("cloak:import-created", (event) => {
  const form = event.target instanceof Element ? event.target.closest("form") : null;
  if (!form) return;
  form.reset();
  form.querySelectorAll(".alert, .field-error").forEach((element) => element.remove());
  form.querySelectorAll(".has-error").forEach((element) => element.classList.remove("has-error"));
});

// Nothing of a session's pages stays in the tab once its person signs out: htmx keeps no
// snapshot of a page (templates/base.html), but it does keep the address it was last at, and
// an address may hold a search someone typed (a name). Cleared as the sign-out is sent, and
// on every page shown signed out (a session that expired).
document.addEventListener("submit", (event) => {
  if (event.target instanceof Element && event.target.matches(".logout-form")) {
    sessionStorage.clear();
  }
});
if (document.body && document.body.hasAttribute("data-signed-out")) {
  sessionStorage.clear();
}
