"""A selection in the workspace's text, made as a mouse would: by the DOM's own (UTF-16)
offsets, across highlights if need be, so that the page's script has to convert them."""

from __future__ import annotations

from typing import Any

_SELECT = """([part, occurrence, pad]) => {
    const box = document.querySelector("#workspace .doc-text");
    const text = box.textContent;
    let from = -1;
    for (let n = 0; n <= occurrence; n++) {
        from = text.indexOf(part, from + 1);
        if (from < 0) return false;
    }
    const to = from + part.length + pad;
    const at = (offset) => {
        const walker = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
        let node;
        while ((node = walker.nextNode())) {
            if (offset <= node.length) return [node, offset];
            offset -= node.length;
        }
    };
    const range = document.createRange();
    range.setStart(...at(from));
    range.setEnd(...at(to));
    const selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
    return true;
}"""


def select_in_text(page: Any, part: str, *, occurrence: int = 0, pad_after: int = 0) -> None:
    """Select the `occurrence`-th `part` of the document's text, and `pad_after` UTF-16 units
    past it: half an emoji is two units of the four its cluster takes."""
    found = page.evaluate(_SELECT, [part, occurrence, pad_after])
    assert found, f"{part!r} is not in the page's text"
