// The document page's keys and selection. The page counts in UTF-16 (the DOM's offsets), the
// server in code points: every offset sent is converted here, from the segments' data-start
// (code points) plus the code points of the text before the caret in that segment. A
// selection is snapped to whole characters (never half an emoji or a mark without its
// letter) and trimmed of spaces at its edges before it becomes a span.
//
// After an action the server answers with a patch (into #workspace-patch), not the page:
// the status bar, the rows of the spans that changed and the stretch of text around them,
// which no span crosses. applyPatch puts each in place; an editor that was open on a
// changed span opens again on its new version, one on a span that is gone closes.
//
// The document also changes behind the page: propagation, a run, another tab or person, a
// lead. Every action says what the page shows (each row's id, stamp and offsets, and the
// status bar's stamp), so that its answer brings whatever else changed meanwhile; and while
// the page is shown it asks the server every few seconds (at once when shown again), which
// answers 204 when nothing changed, else the same kind of patch.
"use strict";

(() => {
  const graphemes =
    typeof Intl !== "undefined" && Intl.Segmenter
      ? new Intl.Segmenter(undefined, { granularity: "grapheme" })
      : null;
  let focusedId = null;
  let picking = false; // after `s`: the next 1-5 picks a suggestion

  const workspace = () => document.getElementById("workspace");
  const textBox = () => document.querySelector("#workspace .doc-text");
  const rows = () =>
    Array.from(document.querySelectorAll("#workspace table.spans tr[data-span-id]"));
  const labels = () => {
    const node = document.getElementById("workspace-labels");
    return node ? JSON.parse(node.textContent) : [];
  };
  const csrf = () => {
    const input = document.querySelector("#workspace input[name=csrfmiddlewaretoken]");
    return input ? input.value : "";
  };
  const codePoints = (text) => Array.from(text).length;

  // The segment element and the UTF-16 offset within the whole text of a DOM position.
  function utf16At(node, offset) {
    const box = textBox();
    if (!box || !box.contains(node)) return null;
    let segment = node.nodeType === Node.TEXT_NODE ? node.parentElement : node;
    if (segment === box) {
      // A position between segments: before the child at `offset`.
      const child = box.childNodes[offset];
      segment = child || box.lastChild;
      const before = segmentsBefore(segment);
      return child ? before : before + segment.textContent.length;
    }
    segment = segment.closest("[data-start]");
    if (!segment) return null;
    const inside = node.nodeType === Node.TEXT_NODE ? offset : 0;
    return segmentsBefore(segment) + inside;
  }

  function segmentsBefore(segment) {
    let length = 0;
    for (const child of textBox().children) {
      if (child === segment) break;
      length += child.textContent.length;
    }
    return length;
  }

  // [start, end) in UTF-16 of the whole text, widened to whole characters and trimmed.
  function snapped(text, start, end) {
    if (graphemes) {
      let from = 0;
      for (const { index, segment } of graphemes.segment(text)) {
        const stop = index + segment.length;
        if (index <= start && start < stop) from = index;
        if (index < end && end <= stop) {
          end = stop;
          break;
        }
      }
      start = from;
    }
    while (start < end && /\s/.test(text[start])) start += 1;
    while (end > start && /\s/.test(text[end - 1])) end -= 1;
    return [start, end];
  }

  // The current selection as code points of the document, or null.
  function selectedSpan() {
    const selection = window.getSelection();
    if (!selection || selection.isCollapsed || selection.rangeCount === 0) return null;
    const range = selection.getRangeAt(0);
    const a = utf16At(range.startContainer, range.startOffset);
    const b = utf16At(range.endContainer, range.endOffset);
    if (a === null || b === null) return null;
    const text = textBox().textContent;
    const [start, end] = snapped(text, Math.min(a, b), Math.max(a, b));
    if (start >= end) return null;
    const first = codePoints(text.slice(0, start));
    return { start: first, end: first + codePoints(text.slice(start, end)) };
  }

  function post(url, values) {
    htmx.ajax("POST", url, {
      target: "#workspace-patch",
      swap: "innerHTML",
      values: { csrfmiddlewaretoken: csrf(), ...values },
    });
  }

  // Cut the plain piece of text that holds code point `point` in two, so that an element
  // starts there. Only plain pieces can hold it: the server cut the patch where no span is.
  function splitAt(box, point) {
    for (const piece of box.children) {
      const start = Number(piece.dataset.start);
      const end = Number(piece.dataset.end);
      if (start < point && point < end) {
        const chars = Array.from(piece.textContent);
        const left = document.createElement("span");
        left.dataset.start = String(start);
        left.dataset.end = String(point);
        left.textContent = chars.slice(0, point - start).join("");
        piece.textContent = chars.slice(point - start).join("");
        piece.dataset.start = String(point);
        piece.before(left);
        return;
      }
      if (start >= point) return;
    }
  }

  function patchText(patch) {
    const box = textBox();
    const from = Number(patch.dataset.from);
    const to = Number(patch.dataset.to);
    splitAt(box, from);
    splitAt(box, to);
    let after = null;
    for (const piece of Array.from(box.children)) {
      const start = Number(piece.dataset.start);
      if (start >= to) {
        after = piece;
        break;
      }
      if (start >= from) piece.remove();
    }
    for (const piece of Array.from(patch.children)) box.insertBefore(piece, after);
  }

  const order = (row) => row.dataset.order.split(" ").map(Number);
  function before(a, b) {
    const [x, y] = [order(a), order(b)];
    return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
  }

  function patchRows(patch) {
    const body = document.querySelector("#workspace table.spans tbody");
    const fresh = Array.from(patch.children);
    const gone = (patch.dataset.removed || "").split(" ").filter(Boolean);
    const reopen = new Set();
    for (const id of gone.concat(fresh.map((row) => row.dataset.spanId))) {
      const old = body.querySelector(`tr[data-span-id="${id}"]`);
      if (!old) continue;
      const slot = old.querySelector(".span-slot");
      if (slot && slot.children.length) reopen.add(id);
      old.remove();
    }
    for (const row of fresh) {
      const next = Array.from(body.children).find((other) => before(row, other) < 0);
      body.insertBefore(row, next || null);
      htmx.process(row);
      if (reopen.has(row.dataset.spanId)) {
        const slot = row.querySelector(".span-slot");
        htmx.ajax("GET", slot.dataset.editorUrl, { target: slot, swap: "innerHTML" });
      }
    }
    document.getElementById("no-spans").hidden = body.children.length > 0;
  }

  function applyPatch(holder) {
    const status = holder.querySelector('[data-patch="status"] > #workspace-status');
    if (status) {
      document.getElementById("workspace-status").replaceWith(status);
      htmx.process(status);
    }
    const rowsPatch = holder.querySelector('[data-patch="rows"]');
    if (rowsPatch) patchRows(rowsPatch);
    const text = holder.querySelector('[data-patch="text"]');
    if (text) patchText(text);
    holder.replaceChildren();
    // An open preview shows the document as released: after a change, as it is now.
    const preview = document.getElementById("release-preview");
    if (preview && preview.open) htmx.trigger(preview.querySelector("form"), "change");
  }

  // `quiet` (after a check of what changed, which the person did not ask for): mark the row,
  // and leave the scroll and any focus elsewhere (an editor being typed in) where they are.
  function focusRow(row, quiet = false) {
    rows().forEach((other) => other.classList.remove("is-focused"));
    if (!row) return;
    row.classList.add("is-focused");
    focusedId = row.dataset.spanId;
    if (!quiet || document.activeElement === document.body) row.focus({ preventScroll: true });
    if (!quiet) {
      row.scrollIntoView({ block: "nearest" });
      // The focused span is in the address: reloading, or coming back, finds it again.
      history.replaceState(history.state, "", `#span-${focusedId}`);
    }
    document
      .querySelectorAll("#workspace .doc-text .is-focused")
      .forEach((mark) => mark.classList.remove("is-focused"));
    document.querySelectorAll("#workspace .doc-text mark[data-spans]").forEach((mark) => {
      if (mark.dataset.spans.split(" ").includes(focusedId)) mark.classList.add("is-focused");
    });
  }

  function focusedRow() {
    return rows().find((row) => row.dataset.spanId === focusedId) || null;
  }

  function move(step) {
    const all = rows();
    if (!all.length) return;
    const at = all.indexOf(focusedRow());
    const next = at < 0 ? (step > 0 ? 0 : all.length - 1) : (at + step + all.length) % all.length;
    focusRow(all[next]);
  }

  function focusedSlot() {
    const row = focusedRow();
    return row ? row.querySelector(".span-slot") : null;
  }

  function act(values) {
    const row = focusedRow();
    if (!row) return;
    post(row.dataset.actionUrl, { version: row.dataset.version, ...values });
  }

  document.addEventListener("keydown", (event) => {
    const box = workspace();
    if (!box || !box.dataset.addUrl) return;
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target;
    if (target instanceof HTMLElement && target.closest("input, select, textarea, button")) {
      return;
    }
    const key = event.key;
    if (picking && /^[1-5]$/.test(key)) {
      picking = false;
      const row = focusedRow();
      const button = row && row.querySelector(`[data-suggestion="${key}"]`);
      if (button) button.click();
      event.preventDefault();
      return;
    }
    picking = false;
    if (key === "s") {
      const slot = focusedSlot();
      if (!slot) return;
      htmx.ajax("GET", slot.dataset.suggestUrl, { target: slot, swap: "innerHTML" });
      picking = true;
    } else if (key === "f") {
      const slot = focusedSlot();
      if (!slot) return;
      // A span gone meanwhile answers with a patch that removes its row, not an editor.
      htmx
        .ajax("GET", slot.dataset.editorUrl, { target: slot, swap: "innerHTML" })
        .then(() => slot.querySelector("textarea[name=comment]")?.focus());
    } else if (key === "j" || key === "k") {
      move(key === "j" ? 1 : -1);
    } else if (key === "a") {
      act({ action: "accept" });
    } else if (key === "x") {
      act({ action: "reject" });
    } else if (/^[1-9]$/.test(key)) {
      const label = labels()[Number(key) - 1];
      if (!label) return;
      const span = selectedSpan();
      if (span) {
        window.getSelection().removeAllRanges();
        post(box.dataset.addUrl, { start: span.start, end: span.end, label });
      } else {
        act({ action: "label", label });
      }
    } else if (key === "p") {
      const preview = document.getElementById("release-preview");
      if (preview) preview.open = !preview.open;
    } else if (key === "u") {
      if (box.dataset.undoUrl) post(box.dataset.undoUrl, {});
    } else if (key === "n") {
      window.location.assign(box.dataset.nextUrl);
    } else if (key === "?") {
      const legend = document.getElementById("keys-legend");
      if (legend) legend.open = !legend.open;
    } else {
      return;
    }
    event.preventDefault();
  });

  // Clicking a highlight focuses its span; after each swap the same span stays focused.
  document.addEventListener("click", (event) => {
    const mark = event.target instanceof Element ? event.target.closest("mark[data-spans]") : null;
    if (!mark || !window.getSelection().isCollapsed) return;
    const id = mark.dataset.spans.split(" ")[0];
    focusRow(rows().find((row) => row.dataset.spanId === id) || null);
  });
  // What the page shows, as the server compares it with the document: each row's span id,
  // stamp (its version and pseudonym) and offsets (code points), and the status bar's stamp.
  function knownRows() {
    return rows()
      .map((row) => {
        const [start, end] = order(row);
        return `${row.dataset.spanId}:${row.dataset.stamp}:${start}:${end}`;
      })
      .join(" ");
  }
  function knownDocument() {
    const status = document.getElementById("workspace-status");
    return status ? status.dataset.documentStamp || "" : "";
  }
  const changesUrl = () => {
    const box = workspace();
    return box ? box.dataset.changesUrl || "" : "";
  };
  const isCheck = (detail) =>
    Boolean(detail.requestConfig && detail.requestConfig.path === changesUrl());

  // Every POST that answers with a patch says what the page shows.
  document.addEventListener("htmx:configRequest", (event) => {
    const { target, verb } = event.detail;
    if (verb !== "post" || !target || target.id !== "workspace-patch") return;
    event.detail.parameters.known = knownRows();
    event.detail.parameters.known_document = knownDocument();
  });

  // The page's own requests under way, and how many it began: a check answered after an
  // action began may be older than that action's answer, and is dropped.
  const pending = new Set();
  let begun = 0;
  let checkBegun = -1;
  let checkSince = 0;
  let reopenAfterSwap = [];
  document.addEventListener("htmx:beforeRequest", (event) => {
    const { target, xhr } = event.detail;
    if (isCheck(event.detail) || !target || !target.closest("#workspace")) return;
    begun += 1;
    pending.add(xhr);
    xhr.addEventListener("loadend", () => pending.delete(xhr));
  });
  document.addEventListener("htmx:beforeSwap", (event) => {
    if (isCheck(event.detail) && (begun !== checkBegun || pending.size > 0)) {
      event.detail.shouldSwap = false;
    }
    // The whole workspace is coming: the editors open now open again in it.
    if (event.detail.target && event.detail.target.id === "workspace") {
      reopenAfterSwap = rows()
        .filter((row) => row.querySelector(".span-slot > *"))
        .map((row) => row.dataset.spanId);
    }
  });

  function check() {
    const url = changesUrl();
    if (!url || document.hidden || pending.size > 0) return;
    // One check at a time (one that never came back stops blocking after a minute).
    if (checkSince && Date.now() - checkSince < 60000) return;
    checkSince = Date.now();
    checkBegun = begun;
    const patch = "#workspace-patch";
    htmx
      .ajax("POST", url, { source: patch, target: patch, swap: "innerHTML" })
      .catch(() => {})
      .finally(() => {
        checkSince = 0;
      });
  }

  document.addEventListener("htmx:afterSwap", (event) => {
    if (event.detail.target && event.detail.target.id === "workspace-patch") {
      applyPatch(event.detail.target);
    }
    for (const id of reopenAfterSwap) {
      const slot = document.querySelector(`#workspace tr[data-span-id="${id}"] .span-slot`);
      if (slot) htmx.ajax("GET", slot.dataset.editorUrl, { target: slot, swap: "innerHTML" });
    }
    reopenAfterSwap = [];
    if (focusedId) focusRow(focusedRow(), isCheck(event.detail));
  });

  const box = workspace();
  if (box && box.dataset.changesUrl) {
    const every = Number(box.dataset.pollSeconds) || 15;
    window.setInterval(check, every * 1000);
    document.addEventListener("visibilitychange", () => {
      if (!document.hidden) check();
    });
    window.addEventListener("focus", check);
  }

  // Back (or forward) to this page shows it as it is now: a page the browser kept in its
  // back-forward cache would show spans as they were, with versions since gone stale.
  window.addEventListener("pageshow", (event) => {
    if (event.persisted && workspace()) window.location.reload();
  });
  function focusFromAddress() {
    const match = /^#span-(\d+)$/.exec(window.location.hash);
    if (match) focusRow(rows().find((row) => row.dataset.spanId === match[1]) || null);
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", focusFromAddress);
  } else {
    focusFromAddress();
  }

  window.cloakWorkspace = { selectedSpan, snapped };
})();
