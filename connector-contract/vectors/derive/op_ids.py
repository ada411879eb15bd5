"""Operation ids (connector-contract/README.md sections 2.5 step 2 and 6.1), derived independently.

8..128 UTF-16 code units, each a Unicode letter (general category L*), a decimal digit (Nd), '_'
or '-'. The Connector tests every UTF-16 unit, and a surrogate is neither letter nor digit, so any
character outside the Basic Multilingual Plane fails. Blank ids (empty or only whitespace) are
not errors on the wire: the Connector generates an id instead.
"""

import unicodedata

LETTER_OR_DIGIT = {"Lu", "Ll", "Lt", "Lm", "Lo", "Nd"}


def check(op_id):
    units = len(op_id.encode("utf-16-le")) // 2
    if not 8 <= units <= 128:
        return "length"
    for ch in op_id:
        if ord(ch) > 0xFFFF:
            return "character"
        if ch not in "_-" and unicodedata.category(ch) not in LETTER_OR_DIGIT:
            return "character"
    return None


def blank(op_id):
    return op_id.strip() == ""
