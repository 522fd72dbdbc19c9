"""Keep the translation catalogues whole: extract every msgid, update the .po files, compile .mo.

    .venv/bin/python scripts/i18n.py            # extract, merge into hu/ru/en .po, compile .mo
    .venv/bin/python scripts/i18n.py --check    # exit 1 if a msgid lacks a translation or a .mo is stale

A msgid is any string literal in ``_("...")`` / ``TR._("...")`` / ``tr._("...")`` / ``N_("...")``
in companion/ (Python and kv). Uses Babel's catalogue reader and writers.
"""

from __future__ import annotations

import argparse
import ast
import io
import re
import sys
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "companion"
LOCALE = PACKAGE / "locale"
LANGS = ("en", "hu", "ru")
CALL = re.compile(r"""\b(?:_|N_)\(\s*((?:"(?:[^"\\]|\\.)*"\s*)+|(?:'(?:[^'\\]|\\.)*'\s*)+)\)""")


def extract() -> list[str]:
    """Every msgid in the package, in a stable order."""
    found: dict[str, None] = {}
    for path in sorted([*PACKAGE.rglob("*.py"), *PACKAGE.rglob("*.kv")]):
        for m in CALL.finditer(path.read_text(encoding="utf-8")):
            found.setdefault(ast.literal_eval("(" + m.group(1) + ")"), None)
    return list(found)


def po_path(lang: str) -> Path:
    return LOCALE / lang / "LC_MESSAGES" / "companion.po"


def load(lang: str) -> Catalog:
    path = po_path(lang)
    if not path.exists():
        return Catalog(locale=lang, domain="companion", project="table-companion")
    with open(path, "rb") as f:
        return read_po(f, locale=lang)


def mo_bytes(catalog: Catalog) -> bytes:
    out = io.BytesIO()
    write_mo(out, catalog)
    return out.getvalue()


def missing(catalog: Catalog, msgids: list[str]) -> list[str]:
    return [m for m in msgids if m not in catalog or not catalog[m].string or catalog[m].fuzzy]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    msgids = extract()
    problems = 0
    for lang in LANGS:
        catalog = load(lang)
        if args.check:
            gaps = missing(catalog, msgids)
            for m in gaps:
                print(f"{lang}: no translation for {m!r}", file=sys.stderr)
            mo = po_path(lang).with_suffix(".mo")
            if not mo.exists() or mo.read_bytes() != mo_bytes(catalog):
                print(f"{lang}: {mo} is missing or older than its .po (run scripts/i18n.py)", file=sys.stderr)
                problems += 1
            problems += len(gaps)
            continue
        fresh = Catalog(locale=lang, domain="companion", project="table-companion",
                        creation_date=catalog.creation_date, revision_date=catalog.revision_date)
        for m in msgids:
            old = catalog.get(m)
            fresh.add(m, old.string if old is not None else (m if lang == "en" else ""))
        po_path(lang).parent.mkdir(parents=True, exist_ok=True)
        with open(po_path(lang), "wb") as f:
            write_po(f, fresh, width=100, omit_header=False, sort_output=False, no_location=True)
        with open(po_path(lang).with_suffix(".mo"), "wb") as f:
            f.write(mo_bytes(fresh))
        gaps = missing(fresh, msgids)
        print(f"{lang}: {len(msgids)} msgids, {len(gaps)} untranslated")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
