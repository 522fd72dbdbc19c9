"""The kiosk's edits of lines the system owns, and how to take them back out.

Tokens on the kernel's command line (the boot options: console blanking, the console's
rotation, the overlay) and a user among a group's members in ``/etc/group``: each edit is
recorded as what it added and what it replaced, so that uninstall can undo exactly that and
keep the host's own changes, made before or since.
"""

from __future__ import annotations

from kiosk import units


def apply_tokens(base: list[str], tokens: list[str]) -> tuple[list[str], list[str], list[str]]:
    """*base* with each of *tokens*: in the place of an earlier token of its key (the others of
    that key dropped), else at the end. Returns the new line, what was added, what was replaced."""
    new = list(base)
    added: list[str] = []
    removed: list[str] = []
    for token in tokens:
        if token in new:
            continue
        key = units.token_key(token)
        places = [i for i, t in enumerate(new) if units.token_key(t) == key]
        removed += [new[i] for i in places]
        if places:
            new[places[0]] = token
            for i in reversed(places[1:]):
                del new[i]
        else:
            new.append(token)
        added.append(token)
    return new, added, removed


def undo_tokens(tokens: list[str], added: list[str], removed: list[str]) -> list[str]:
    """A command line with an install's tokens taken out and the ones they replaced put back in
    their place; the host's own tokens, old and new, stay where they are."""
    out = list(tokens)
    pending = list(removed)
    for token in added:
        if token not in out:
            continue
        i = out.index(token)
        match = next((r for r in pending if units.token_key(r) == units.token_key(token)), None)
        if match is None:
            del out[i]
        else:
            out[i] = match
            pending.remove(match)
    return out + [t for t in pending if t not in out]


def remove_members(lines: list[str], added: list[str], members_field: int) -> list[str]:
    """Group lines with each ``group:user`` in *added* taken out of that group's members."""
    drop = {tuple(a.split(":", 1)) for a in added}
    out = []
    for line in lines:
        parts = line.split(":")
        if len(parts) > members_field:
            members = [m for m in parts[members_field].split(",") if m and (parts[0], m) not in drop]
            parts[members_field] = ",".join(members)
            line = ":".join(parts)
        out.append(line)
    return out
