"""Approval tokens (connector-contract/README.md section 5.4, 5.5), derived independently.

token = b64url(payload) "." b64url(HMAC-SHA256(secret, b64url(payload) as ASCII)), no padding.
Verification order: two parts; bad base64 in either part -> "payload"; signature -> "signature";
payload must be a JSON object with the claim keys -> "payload"; version == 1 and single_use ==
true -> else "unsupported". Inspection (client side) reads the first part without the signature
and additionally needs a non-empty operation_id and tool.
"""

import base64
import binascii
import hashlib
import hmac
import json

CLAIM_KEYS = ["version", "operation_id", "tool", "action", "arguments_hash", "risk_class",
              "project_id", "expires_at_ms", "single_use"]


def b64u(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def unb64u(text):
    if "=" in text or len(text) % 4 == 1:
        raise ValueError("bad base64url")
    try:
        raw = base64.b64decode(text + "=" * (-len(text) % 4), altchars=b"-_", validate=True)
    except binascii.Error as e:
        raise ValueError(str(e))
    if b64u(raw) != text:  # non-zero trailing bits
        raise ValueError("non-canonical base64url")
    return raw


def payload_json(claims):
    ordered = {k: claims[k] for k in CLAIM_KEYS}
    return json.dumps(ordered, separators=(",", ":"), ensure_ascii=False)


def sign_text(secret, payload_text):
    p = b64u(payload_text.encode("utf-8"))
    mac = hmac.new(secret, p.encode("ascii"), hashlib.sha256).digest()
    return p + "." + b64u(mac)


def _claims(raw):
    try:
        c = json.loads(raw.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(c, dict) or any(k not in c for k in CLAIM_KEYS):
        return None
    types = {"version": int, "operation_id": str, "tool": str, "arguments_hash": str,
             "risk_class": str, "project_id": str, "expires_at_ms": int, "single_use": bool}
    for k, t in types.items():
        if type(c[k]) is not t:
            return None
    if c["action"] is not None and type(c["action"]) is not str:
        return None
    return {k: c[k] for k in CLAIM_KEYS}


def verify(secret, token):
    parts = token.split(".")
    if len(parts) != 2 or not parts[0] or not parts[1]:
        return ("error", "envelope")
    try:
        sig = unb64u(parts[1])
        raw = unb64u(parts[0])
    except ValueError:
        return ("error", "payload")
    mac = hmac.new(secret, parts[0].encode("ascii"), hashlib.sha256).digest()
    if not hmac.compare_digest(mac, sig):
        return ("error", "signature")
    c = _claims(raw)
    if c is None:
        return ("error", "payload")
    if c["version"] != 1 or c["single_use"] is not True:
        return ("error", "unsupported")
    return ("ok", c)


def inspect(token):
    first = token.split(".")[0]
    if not first:
        return ("error", "envelope")
    try:
        raw = unb64u(first)
    except ValueError:
        return ("error", "payload")
    c = _claims(raw)
    if c is None:
        return ("error", "payload")
    if c["version"] != 1 or c["single_use"] is not True or not c["operation_id"] or not c["tool"]:
        return ("error", "unsupported")
    return ("ok", c)


def sign_text_raw(secret, payload_part):
    """Signs an already encoded (possibly malformed) first part, to build tampered tokens."""
    mac = hmac.new(secret, payload_part.encode("ascii"), hashlib.sha256).digest()
    return payload_part + "." + b64u(mac)
