"""A small HTML reader for the report tests: elements by id, with their text and open-<details> ancestry."""
from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


@dataclass
class Element:
    tag: str
    attrs: dict[str, str | None]
    ancestors: list[Element]
    text_parts: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "".join(self.text_parts)

    def visible_without_clicks(self) -> bool:
        """Not inside a closed <details> other than in its own <summary>."""
        chain = self.ancestors + [self]
        for index, element in enumerate(chain):
            if element.tag == "details" and "open" not in element.attrs:
                following = chain[index + 1:]
                if not following or following[0].tag != "summary":
                    return False
        return True


class Probe(HTMLParser):
    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[Element] = []
        self.elements: list[Element] = []
        self.title = ""
        self.feed(html)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, dict(attrs), list(self.stack))
        self.elements.append(element)
        if tag not in VOID:
            self.stack.append(element)

    def handle_endtag(self, tag: str) -> None:
        for index in range(len(self.stack) - 1, -1, -1):
            if self.stack[index].tag == tag:
                del self.stack[index:]
                return

    def handle_data(self, data: str) -> None:
        for element in self.stack:
            element.text_parts.append(data)
        if self.stack and self.stack[-1].tag == "title" and any(e.tag == "head" for e in self.stack):
            self.title += data

    def by_id(self, element_id: str) -> Element:
        matches = [e for e in self.elements if e.attrs.get("id") == element_id]
        assert len(matches) == 1, f"expected one element with id {element_id!r}, found {len(matches)}"
        return matches[0]

    def ids(self) -> list[str]:
        return [e.attrs["id"] for e in self.elements if e.attrs.get("id")]

    def links(self) -> list[Element]:
        return [e for e in self.elements if e.tag == "a" and e.attrs.get("href")]
