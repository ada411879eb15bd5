"""JSON text with number literals kept verbatim, and the Connector's canonical writer.

Independent of the Rust crate on purpose: this follows the rules as connector-contract/README.md states
them (sections 3.8 and 9.2), using only the standard library.

* `load(text)` parses JSON (RFC 8259) keeping every number as its literal text (`Num`) and every
  object as an ordered list of pairs (`Obj`; a repeated key keeps its last value).
* `canonical(value, mode)` writes compact JSON with object keys sorted by UTF-16 code units
  (C# ordinal order), arrays in order, no HTML escaping, and Newtonsoft's string escaping.
  mode "literal" keeps numbers as written (catalog_hash); mode "newtonsoft" re-writes numbers and
  date-looking strings the way the Connector's Newtonsoft parse/write round trip does
  (arguments_hash).
"""

import hashlib
import json

import newtonsoft


class Num(str):
    """A JSON number, kept as its exact literal text."""


class Obj(list):
    """A JSON object: a list of (key, value) pairs in input order."""


def _pairs(pairs):
    out = Obj()
    for k, v in pairs:
        for i, (k2, _) in enumerate(out):
            if k2 == k:
                out[i] = (k, v)
                break
        else:
            out.append((k, v))
    return out


def _no_constants(name):
    raise ValueError("not JSON: " + name)


def load(text):
    return json.loads(text, parse_int=Num, parse_float=Num,
                      parse_constant=_no_constants, object_pairs_hook=_pairs)


def utf16_key(s):
    # Big-endian UTF-16 bytes compare exactly like UTF-16 code units.
    return s.encode("utf-16-be", "surrogatepass")


_SHORT = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def quote(s):
    out = ['"']
    for ch in s:
        o = ord(ch)
        if ch in _SHORT:
            out.append(_SHORT[ch])
        elif o < 0x20 or o in (0x85, 0x2028, 0x2029):
            out.append("\\u%04x" % o)
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def canonical(v, mode):
    assert mode in ("literal", "newtonsoft")
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, Num):
        return str(v) if mode == "literal" else newtonsoft.number(str(v))
    if isinstance(v, str):
        if mode == "newtonsoft":
            d = newtonsoft.date(v)
            if d is not None:
                return quote(d)
        return quote(v)
    if isinstance(v, Obj):
        items = sorted(v, key=lambda kv: utf16_key(kv[0]))
        return "{" + ",".join(quote(k) + ":" + canonical(x, mode) for k, x in items) + "}"
    if isinstance(v, list):
        return "[" + ",".join(canonical(x, mode) for x in v) + "]"
    raise TypeError(type(v))


def sha256_prefixed(text):
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def arguments_canonical(params_text):
    """The Connector's canonical text of a raw params value: non-objects count as {}."""
    v = load(params_text)
    if not isinstance(v, Obj):
        return "{}"
    return canonical(v, "newtonsoft")


def catalog_material(envelope_text):
    """Only schema_version and tools count toward catalog_hash; numbers stay literal."""
    v = load(envelope_text)
    kept = Obj((k, x) for k, x in v if k in ("schema_version", "tools"))
    return canonical(kept, "literal")


def numbers_in(v):
    if isinstance(v, Num):
        yield str(v)
    elif isinstance(v, list):  # Obj too
        for x in v:
            if isinstance(x, tuple):
                yield from numbers_in(x[1])
            else:
                yield from numbers_in(x)


def serde_value_safe(params_text):
    """Whether a serde_json::Value (default features) round trip keeps the Connector's meaning:
    integers must fit i64/u64 (else serde turns them into f64) and not be -0 (serde reads it as the
    float -0.0), floats must sit in the exactly parsed region (at most 15 significant digits,
    decimal exponent within +-22)."""
    for lit in numbers_in(load(params_text)):
        if any(c in lit for c in ".eE"):
            sig, exp = newtonsoft.digits_and_exponent(float(lit))
            if len(sig) > 15 or not -22 <= exp <= 22:
                return False
        else:
            n = int(lit)
            if not -(2 ** 63) <= n <= 2 ** 64 - 1 or lit == "-0":
                return False
    return True
