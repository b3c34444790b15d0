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
