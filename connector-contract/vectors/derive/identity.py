"""Project identity (connector-contract/README.md sections 1.2, 1.8, 6.3), derived independently.

* heartbeat file name: first 16 lowercase hex digits of MD5 over the UTF-8 projectPath exactly as
  published, plus ".json";
* normalized path: trimmed, cleaned lexically ('.', '..', repeated separators), forward slashes,
  no trailing slash, lowercased on Windows the way the Editor's runtime lowers with the invariant
  culture (see lower_invariant). The Connector turns '\\' into '/' on every OS, so a
  Unix path's backslash is a separator here too (the Connector is the side that publishes the id);
* project_id: "sha256:" + hex SHA-256 of the UTF-8 normalized path;
* ledger directory: project_id with ':' replaced by '_'.
"""

import hashlib
import ntpath
import posixpath


def heartbeat_file_name(project_path):
    return hashlib.md5(project_path.encode("utf-8")).hexdigest()[:16] + ".json"


def normalize(path, flavor):
    p = path.strip(" \t\n\r")
    if flavor == "unix":
        p = posixpath.normpath(p.replace("\\", "/"))
        if p.startswith("//"):  # POSIX normpath keeps exactly two leading slashes; Go's Clean does not
            p = "/" + p.lstrip("/")
        return p
    if flavor == "windows":
        p = ntpath.normpath(p).replace("\\", "/")
        if len(p) > 3 and p.endswith("/"):
            p = p.rstrip("/")
        return lower_invariant(p)
    raise ValueError(flavor)


# The runtime's own answers where Unicode's simple mapping gives none or a longer one.
RUNTIME_LOWER = {0x0130: "i", 0x03D2: "\u03c5", 0x03D3: "\u03cd", 0x03D4: "\u03cb"}


def lower_invariant(text):
    """One UTF-16 unit at a time, each to one unit, with no context (so no final sigma). The
    runtime's table covers U+0000-U+24CF and U+FF21-U+FFFF; other units keep their case."""
    out = []
    for ch in text:
        cp = ord(ch)
        if cp in RUNTIME_LOWER:
            out.append(RUNTIME_LOWER[cp])
        elif 0x24D0 <= cp <= 0xFF20 or cp > 0xFFFF:
            out.append(ch)
        else:
            low = ch.lower()  # a single character has no final-sigma context
            out.append(low if len(low) == 1 else ch)
    return "".join(out)


def project_id(path, flavor):
    return "sha256:" + hashlib.sha256(normalize(path, flavor).encode("utf-8")).hexdigest()


def ledger_dir(pid):
    return pid.replace(":", "_")
