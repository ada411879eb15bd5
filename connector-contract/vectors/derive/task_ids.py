"""Durable task ids (connector-contract/README.md section 7.5), derived independently.

"hera_task_" + base64url(no padding) of compact JSON with keys in the order v, project_id, k, p,
u, o, a (left out when empty), c. Decoding: at most 1024 characters, the prefix, strict base64url,
a JSON object, v == 2, k in {test, package}, p in 1..65535, u and o matching
^[A-Za-z0-9_-]{8,160}$.
"""

import json
import re

from tokens import b64u, unb64u

PREFIX = "hera_task_"
ORDER = ["v", "project_id", "k", "p", "u", "o", "a", "c"]
_ID = re.compile(r"[A-Za-z0-9_-]{8,160}")


def encode(record):
    fields = {k: record[k] for k in ORDER if k in record and not (k == "a" and not record[k])}
    return PREFIX + b64u(json.dumps(fields, separators=(",", ":")).encode("utf-8"))


def decode(task_id):
    if len(task_id) > 1024:
        return ("error", "too_long", None)
    if not task_id.startswith(PREFIX):
        return ("error", "prefix", None)
    try:
        t = json.loads(unb64u(task_id[len(PREFIX):]).decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        return ("error", "encoding", None)
    if not isinstance(t, dict):
        return ("error", "encoding", None)
    if t.get("v") != 2 or type(t.get("v")) is not int:
        return ("error", "field", "v")
    if t.get("k") not in ("test", "package"):
        return ("error", "field", "k")
    p = t.get("p")
    if type(p) is not int or not 1 <= p <= 65535:
        return ("error", "field", "p")
    for f in ("u", "o"):
        if type(t.get(f)) is not str or not _ID.fullmatch(t[f]):
            return ("error", "field", f)
    return ("ok", {k: t[k] for k in ORDER if k in t and not (k == "a" and not t[k])})
