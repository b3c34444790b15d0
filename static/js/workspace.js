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
  const chosen = new Set(); // spans whose editor sent a choice: it closes on the answer

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

  // A row carries its span's id and version, not its URLs: the span's own URL is the
  // workspace's (data-add-url) and its id. Its editor (or the suggestions `s` shows) goes in
  // a slot made when one opens, not one a row.
  const spanUrl = (row, rest = "") => `${workspace().dataset.addUrl}${row.dataset.spanId}/${rest}`;
  function slotOf(row) {
    const cell = row ? row.querySelector("td.span-actions") : null;
    if (!cell) return null;
    let slot = cell.querySelector(".span-slot");
    if (!slot) {
      slot = document.createElement("div");
      slot.className = "span-slot";
      cell.appendChild(slot);
    }
    return slot;
  }
  function openEditor(row, source = null) {
    const slot = slotOf(row);
    if (!slot) return Promise.resolve();
    return htmx.ajax("GET", spanUrl(row, "editor/"), { source, target: slot, swap: "innerHTML" });
  }

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

  // A selection made from the keyboard: `v` selects the word after the focused span (or
  // after the selection, or the first word), Shift+`v` the word before; Shift+arrows move the
  // selection's end by a character, and with Ctrl by a word. It is the page's own selection
  // (window.getSelection), so the label keys and `/` label it as they label the mouse's.
  function domPoint(point) {
    for (const piece of textBox().children) {
      const start = Number(piece.dataset.start);
      const end = Number(piece.dataset.end);
      if (point >= start && (point < end || (point === end && !piece.nextElementSibling))) {
        const node = piece.firstChild || piece;
        const utf16 = Array.from(piece.textContent).slice(0, point - start).join("").length;
        return [node, utf16];
      }
    }
    return null;
  }

  function selectCodePoints(start, end) {
    const a = domPoint(start);
    const b = domPoint(end);
    if (!a || !b) return;
    const range = document.createRange();
    range.setStart(a[0], a[1]);
    range.setEnd(b[0], b[1]);
    const selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  }

  const WORD = /[\p{L}\p{N}\p{M}_@#'’-]/u;
  // A letter, digit or joiner of a word; a dot only between two of them (an address).
  const wordAt = (chars, i) =>
    WORD.test(chars[i] || "") ||
    (chars[i] === "." && WORD.test(chars[i - 1] || "") && WORD.test(chars[i + 1] || ""));
  // The [start, end) in code points of the word after (step 1) or before (step -1) `point`.
  function wordNear(chars, point, step) {
    let at = point;
    if (step > 0) {
      while (at < chars.length && !wordAt(chars, at)) at += 1;
      let end = at;
      while (end < chars.length && wordAt(chars, end)) end += 1;
      return at < end ? [at, end] : null;
    }
    at -= 1;
    while (at >= 0 && !wordAt(chars, at)) at -= 1;
    let start = at;
    while (start > 0 && wordAt(chars, start - 1)) start -= 1;
    return at >= 0 ? [start, at + 1] : null;
  }

  function selectWord(step) {
    const chars = Array.from(textBox().textContent);
    const now = selectedSpan();
    const row = focusedRow();
    let from = step > 0 ? 0 : chars.length;
    if (now) from = step > 0 ? now.end : now.start;
    else if (row) {
      const [start, end] = order(row);
      from = step > 0 ? end : start;
    }
    const word = wordNear(chars, from, step);
    if (word) selectCodePoints(word[0], word[1]);
  }

  function extendSelection(step, byWord) {
    const now = selectedSpan();
    if (!now) return false;
    const chars = Array.from(textBox().textContent);
    let end = now.end;
    if (!byWord) end = Math.min(chars.length, Math.max(now.start + 1, end + step));
    else if (step > 0) {
      const word = wordNear(chars, end, 1);
      end = word ? word[1] : end;
    } else {
      const word = wordNear(chars, end, -1);
      const earlier = word ? wordNear(chars, word[0], -1) : null;
      end = earlier && earlier[1] > now.start ? earlier[1] : end;
    }
    selectCodePoints(now.start, end);
    return true;
  }

  // The focused span's edges, from the keyboard: `[` `]` its start one word earlier or
  // later, `,` `.` its end; with Shift (`{` `}` `<` `>`) one character.
  const EDGE_KEYS = {
    "[": ["start", "word", true], "]": ["start", "word", false],
    "{": ["start", "char", true], "}": ["start", "char", false],
    ",": ["end", "word", false], ".": ["end", "word", true],
    "<": ["end", "char", false], ">": ["end", "char", true],
  };

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
      // An editor open on a span changed meanwhile, or by a move of an edge, opens again on
      // its new version; one where a choice was made (a label, a decision, a pseudonym, a
      // flag) has done its work and closes.
      if (slot && slot.children.length && !chosen.has(id)) reopen.add(id);
      chosen.delete(id);
      old.remove();
    }
    for (const row of fresh) {
      const next = Array.from(body.children).find((other) => before(row, other) < 0);
      body.insertBefore(row, next || null);
      htmx.process(row);
      if (reopen.has(row.dataset.spanId)) openEditor(row);
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
    // Each stretch of the text that changed: they never meet, so each goes in on its own.
    holder.querySelectorAll('[data-patch="text"]').forEach(patchText);
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

  function act(values, row = focusedRow()) {
    if (!row) return;
    post(spanUrl(row), { version: row.dataset.version, ...values });
  }

  // The label picker, over every label of the schema: `/` opens it on the selection (or, with
  // none, on the focused span), and so does the button shown beside a selection made with
  // the mouse. The selection is read when it opens, as code points: the focus moving into
  // the picker's field would lose it. Typing filters (names first), arrows move, Enter adds
  // the span (or relabels), Escape closes and gives the focus back.
  let pickerSpan = null; // {start, end} in code points; null: the focused span is relabelled
  let pickerReturn = null;
  let selectionNow = null; // the selection the button beside it would label
  const picker = () => document.getElementById("label-picker");
  const pickerInput = () => document.getElementById("label-picker-input");
  const selectionButton = () => document.getElementById("selection-label");
  const pickerOptions = () =>
    Array.from(picker().querySelectorAll("[role=option]")).filter((option) => !option.hidden);

  function setActive(option) {
    for (const other of picker().querySelectorAll("[role=option]")) {
      other.setAttribute("aria-selected", other === option ? "true" : "false");
      other.classList.toggle("is-active", other === option);
    }
    const input = pickerInput();
    if (option) {
      input.setAttribute("aria-activedescendant", option.id);
      option.scrollIntoView({ block: "nearest" });
    } else {
      input.removeAttribute("aria-activedescendant");
    }
  }

  function filterPicker() {
    const query = pickerInput().value.trim().toLowerCase();
    const list = document.getElementById("label-picker-list");
    const rank = (option) => {
      const name = option.dataset.label.toLowerCase();
      if (!query || name === query) return 0;
      if (name.startsWith(query)) return 1;
      if (name.includes(query)) return 2;
      return option.dataset.search.includes(query) ? 3 : -1;
    };
    const ranked = Array.from(list.children).map((option) => [rank(option), option]);
    ranked.sort(
      ([a, x], [b, y]) =>
        (a < 0) - (b < 0) || a - b || Number(x.dataset.order) - Number(y.dataset.order),
    );
    for (const [place, option] of ranked) {
      option.hidden = place < 0;
      list.appendChild(option);
    }
    const shown = pickerOptions();
    document.getElementById("label-picker-none").hidden = shown.length > 0;
    setActive(shown[0] || null);
  }

  function openPicker(span) {
    const box = picker();
    const row = focusedRow();
    if (!box || (!span && !row)) return false;
    pickerSpan = span;
    pickerReturn = document.activeElement;
    const text = span
      ? Array.from(textBox().textContent).slice(span.start, span.end).join("")
      : row.querySelector(".surface").textContent;
    document.getElementById("label-picker-text").textContent = text;
    pickerInput().value = "";
    filterPicker();
    selectionButton().hidden = true;
    box.hidden = false;
    // Beside the selection (or the row), inside the window.
    const selection = window.getSelection();
    const rect =
      span && selection.rangeCount
        ? selection.getRangeAt(0).getBoundingClientRect()
        : row.getBoundingClientRect();
    const width = box.offsetWidth;
    const height = box.offsetHeight;
    const below = rect.bottom + 6 + height <= window.innerHeight;
    box.style.top = `${Math.max(8, below ? rect.bottom + 6 : rect.top - height - 6)}px`;
    box.style.left = `${Math.max(8, Math.min(rect.left, window.innerWidth - width - 8))}px`;
    pickerInput().focus();
    return true;
  }

  function closePicker(giveFocusBack = true) {
    const box = picker();
    if (!box || box.hidden) return;
    box.hidden = true;
    pickerSpan = null;
    const back = pickerReturn;
    pickerReturn = null;
    if (giveFocusBack && back && back !== document.body && document.contains(back)) {
      back.focus({ preventScroll: true });
    } else if (giveFocusBack && focusedRow()) {
      focusedRow().focus({ preventScroll: true });
    }
  }

  function choose(option) {
    if (!option) return;
    const label = option.dataset.label;
    const span = pickerSpan;
    const box = workspace();
    closePicker();
    if (span) {
      window.getSelection().removeAllRanges();
      post(box.dataset.addUrl, { start: span.start, end: span.end, label });
    } else {
      act({ action: "label", label });
    }
  }

  document.addEventListener("input", (event) => {
    if (event.target === pickerInput()) filterPicker();
  });
  document.addEventListener("keydown", (event) => {
    if (event.target !== pickerInput()) return;
    const shown = pickerOptions();
    const at = shown.findIndex((option) => option.classList.contains("is-active"));
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      const step = event.key === "ArrowDown" ? 1 : -1;
      if (shown.length) setActive(shown[(at + step + shown.length) % shown.length]);
    } else if (event.key === "Home" || event.key === "End") {
      if (!shown.length || pickerInput().value) return; // in the field: the caret moves
      setActive(event.key === "Home" ? shown[0] : shown[shown.length - 1]);
    } else if (event.key === "Enter") {
      choose(shown[at] || null);
    } else if (event.key === "Escape") {
      closePicker();
    } else {
      return;
    }
    event.preventDefault();
  });
  // A pick with the pointer; the field keeps the focus meanwhile.
  document.addEventListener("mousedown", (event) => {
    const target = event.target instanceof Element ? event.target : null;
    if (target && (target.closest("#label-picker [role=option]") || target.closest("#selection-label"))) {
      event.preventDefault();
    }
  });
  document.addEventListener("click", (event) => {
    const target = event.target instanceof Element ? event.target : null;
    if (!target) return;
    const option = target.closest("#label-picker [role=option]");
    if (option) {
      choose(option);
    } else if (target.closest("#selection-label")) {
      openPicker(selectionNow);
    } else if (picker() && !picker().hidden && !target.closest("#label-picker")) {
      closePicker(false);
    }
  });
  // The focus leaving the picker (Tab, a click elsewhere) closes it.
  document.addEventListener("focusout", (event) => {
    const box = picker();
    if (!box || box.hidden || !box.contains(event.target)) return;
    if (event.relatedTarget && box.contains(event.relatedTarget)) return;
    if (event.relatedTarget) closePicker(false);
  });
  // The button beside a selection made in the text, gone with it.
  let selectionQueued = false;
  document.addEventListener("selectionchange", () => {
    if (selectionQueued) return;
    selectionQueued = true;
    requestAnimationFrame(() => {
      selectionQueued = false;
      const button = selectionButton();
      if (!button || !workspace() || !workspace().dataset.addUrl) return;
      if (document.activeElement === button) return;
      if (picker() && !picker().hidden) return;
      const span = selectedSpan();
      if (!span) {
        button.hidden = true;
        selectionNow = null;
        return;
      }
      selectionNow = span;
      const selection = window.getSelection();
      const rects = selection.getRangeAt(0).getClientRects();
      const last = rects[rects.length - 1] || selection.getRangeAt(0).getBoundingClientRect();
      button.hidden = false;
      const width = button.offsetWidth;
      button.style.top = `${Math.min(last.bottom + 4, window.innerHeight - button.offsetHeight - 4)}px`;
      button.style.left = `${Math.max(4, Math.min(last.right - width / 2, window.innerWidth - width - 4))}px`;
    });
  });

  document.addEventListener("keydown", (event) => {
    const box = workspace();
    if (!box || !box.dataset.addUrl) return;
    const target = event.target;
    if (target instanceof HTMLElement && target.closest("input, select, textarea, button")) {
      return;
    }
    if (
      event.shiftKey &&
      !event.metaKey &&
      !event.altKey &&
      (event.key === "ArrowRight" || event.key === "ArrowLeft")
    ) {
      // The selection's end, by a character (by a word with Ctrl), in the text's order.
      const step = event.key === "ArrowRight" ? 1 : -1;
      const rtl = textBox() && textBox().getAttribute("dir") === "rtl";
      if (extendSelection(rtl ? -step : step, event.ctrlKey)) event.preventDefault();
      return;
    }
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const key = event.key;
    if (picking && /^[1-5]$/.test(key)) {
      picking = false;
      const row = focusedRow();
      const button = row && row.querySelector(`[data-suggestion="${key}"]`);
      if (button) {
        // A quick `s` then digit can come before htmx has bound the suggestions it just
        // swapped in (it does at settle): bound now, the click is htmx's patch, never the
        // form's own submission, which would load the whole page again.
        htmx.process(button.closest("form") || button);
        button.click();
      }
      event.preventDefault();
      return;
    }
    picking = false;
    // A key that acts (moves, decides, adds, undoes, opens the picker) shuts any editor
    // panel open over the page: it would hide the text and rows the key works on.
    if (/^[jkaxun1-9/]$/.test(key)) {
      document.querySelectorAll("#workspace .span-slot").forEach((slot) => slot.replaceChildren());
    }
    if (key === "s") {
      const row = focusedRow();
      const slot = slotOf(row);
      if (!slot) return;
      htmx.ajax("GET", spanUrl(row, "suggestions/"), { target: slot, swap: "innerHTML" });
      picking = true;
    } else if (key === "f") {
      const row = focusedRow();
      const slot = slotOf(row);
      if (!slot) return;
      // A span gone meanwhile answers with a patch that removes its row, not an editor.
      openEditor(row).then(() => slot.querySelector("textarea[name=comment]")?.focus());
    } else if (key === "j" || key === "k") {
      move(key === "j" ? 1 : -1);
    } else if (key === "a") {
      act({ action: "accept" });
    } else if (key === "A") {
      // Every proposal with the focused span's label, accepted at once.
      const row = focusedRow();
      if (!row || !box.dataset.bulkUrl) return;
      post(box.dataset.bulkUrl, { status: "accepted", label: row.dataset.label });
    } else if (key === "v" || key === "V") {
      selectWord(key === "v" ? 1 : -1);
    } else if (Object.hasOwn(EDGE_KEYS, key)) {
      const [edge, unit, extend] = EDGE_KEYS[key];
      const values = { action: "move", edge, unit };
      if (extend) values.extend = "on";
      act(values);
    } else if (key === "d") {
      const done = document.getElementById("done-form");
      if (done) done.requestSubmit();
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
    } else if (key === "/") {
      if (!openPicker(selectedSpan())) return;
    } else if (key === "?") {
      const legend = document.getElementById("keys-legend");
      if (legend) legend.open = !legend.open;
    } else {
      return;
    }
    event.preventDefault();
  });

  // A row's own buttons (workspace_html.rows_html): accept or reject the span as the row
  // shows it, or open its editor (the focus then goes into it, see below).
  document.addEventListener("click", (event) => {
    const button =
      event.target instanceof Element ? event.target.closest("td.span-actions > button") : null;
    const row = button ? button.closest("tr[data-span-id]") : null;
    if (!row || !workspace().contains(row)) return;
    if (button.value === "edit") openEditor(row, button);
    else act({ action: button.value }, row);
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

  // Every POST that answers with a patch says what the page shows. One sent from a span's
  // editor (or the suggestions `s` shows) that is not a move of an edge is a choice.
  document.addEventListener("htmx:configRequest", (event) => {
    const { target, verb, elt } = event.detail;
    if (verb !== "post" || !target || target.id !== "workspace-patch") return;
    const slot = elt instanceof Element ? elt.closest(".span-slot") : null;
    if (slot && event.detail.parameters.action !== "move") {
      chosen.add(slot.closest("tr[data-span-id]").dataset.spanId);
    }
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

  // The span's editor is a panel over the side of the page (the slot, see cloak.css):
  // opened with its button, the focus goes to it; Escape or Close shuts it and gives the
  // focus back to the span's row.
  function closeEditor(slot) {
    const row = slot.closest("tr[data-span-id]");
    slot.replaceChildren();
    if (row) focusRow(row);
  }
  document.addEventListener("click", (event) => {
    const button = event.target instanceof Element ? event.target.closest("[data-close-editor]") : null;
    const slot = button ? button.closest(".span-slot") : null;
    if (slot) closeEditor(slot);
  });
  document.addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || !(event.target instanceof Element)) return;
    const slot = event.target.closest(".span-slot");
    if (!slot || !slot.children.length) return;
    closeEditor(slot);
    event.preventDefault();
  });

  document.addEventListener("htmx:afterSwap", (event) => {
    if (event.detail.target && event.detail.target.id === "workspace-patch") {
      applyPatch(event.detail.target);
    }
    for (const id of reopenAfterSwap) {
      const row = document.querySelector(`#workspace tr[data-span-id="${id}"]`);
      if (row) openEditor(row);
    }
    reopenAfterSwap = [];
    if (focusedId) focusRow(focusedRow(), isCheck(event.detail));
  });
  // An editor opened from its button: the focus goes into the panel (after the row's).
  document.addEventListener("htmx:afterSwap", (event) => {
    const slot = event.detail.target;
    const opener = event.detail.requestConfig && event.detail.requestConfig.elt;
    if (
      slot instanceof Element &&
      slot.classList.contains("span-slot") &&
      opener instanceof Element &&
      opener.closest("td.span-actions button")
    ) {
      const title = slot.querySelector(".span-editor h3");
      if (title) title.focus();
    }
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
    // A stretch no span holds (a release's refusal links to what nobody decided): selected
    // in the text, in view, for a label key to add the span.
    const stretch = /^#at-(\d+)-(\d+)$/.exec(window.location.hash);
    if (stretch && textBox()) {
      selectCodePoints(Number(stretch[1]), Number(stretch[2]));
      const selection = window.getSelection();
      if (selection.rangeCount) {
        const node = selection.getRangeAt(0).startContainer;
        const element = node.nodeType === Node.TEXT_NODE ? node.parentElement : node;
        if (element) element.scrollIntoView({ block: "center" });
      }
    }
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", focusFromAddress);
  } else {
    focusFromAddress();
  }
  // A link to a span's row (a refusal to mark the document done names the spans left).
  window.addEventListener("hashchange", focusFromAddress);

  window.cloakWorkspace = { selectedSpan, snapped };
})();
