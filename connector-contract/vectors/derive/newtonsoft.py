"""What Newtonsoft.Json's default parse-then-write does to numbers and date-looking strings.

Rules as connector-contract/README.md section 9.2 and the audit in section 14 state them:

* A number literal containing '.', 'e' or 'E' becomes a double and is written in .NET round-trip
  form: shortest round-trip digits, fixed notation while the decimal exponent is in [-4, 14],
  otherwise d[.ddd]E+XX / E-XX with at least two exponent digits; ".0" is appended when the text
  has neither '.' nor 'E'. Zero loses its sign (observed on Mono): -0.0 -> 0.0.
* Any other number is a 64-bit integer or a BigInteger, written as plain decimal: -0 -> 0.
* A string of 19..40 characters with a digit first and 'T' at index 10 that parses as an ISO
  date-time becomes a date and is written back in ISO form with the fraction's trailing zeros
  dropped; a numeric offset is converted to the Editor's local zone. These vectors assume an
  Editor running on UTC (the simulator's choice), written as "+00:00". "/Date(ms)/" is a UTC date
  ("Z"); "/Date(ms+hhmm)/" is a local one ("+00:00" on a UTC Editor).

Doubles with more than 15 significant digits are avoided in the vectors: .NET Framework's "R"
and the shortest form can differ there, and which one Unity's runtime uses is unconfirmed.
"""

import datetime
import re
from decimal import Decimal


def digits_and_exponent(x):
    """Shortest round-trip significant digits of |x| and the decimal exponent of the first one."""
    sign, digits, exp = Decimal(repr(abs(x))).normalize().as_tuple()
    ds = "".join(map(str, digits))
    return ds, len(ds) - 1 + exp


def double(x):
    if x == 0:
        return "0.0"
    ds, e = digits_and_exponent(x)
    neg = "-" if x < 0 else ""
    if e < -4 or e >= 15:
        mant = ds[0] + ("." + ds[1:] if len(ds) > 1 else "")
        return neg + mant + "E" + ("-" if e < 0 else "+") + "%02d" % abs(e)
    if e >= 0:
        whole = ds[: e + 1].ljust(e + 1, "0")
        frac = ds[e + 1:]
        text = whole + ("." + frac if frac else "")
    else:
        text = "0." + "0" * (-e - 1) + ds
    if "." not in text:
        text += ".0"
    return neg + text


def number(lit):
    if any(c in lit for c in ".eE"):
        x = float(lit)
        if x in (float("inf"), float("-inf")):
            raise ValueError("out of double range: " + lit)
        return double(x)
    return str(int(lit))


_ISO = re.compile(r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,7}))?(Z|[+-]\d{2}:\d{2})?")
_MS = re.compile(r"/Date\((-?\d+)([+-]\d{4})?\)/")
_EPOCH = datetime.datetime(1970, 1, 1)


def _iso(dt, ticks, suffix):
    frac = ("%07d" % ticks).rstrip("0")
    return dt.strftime("%Y-%m-%dT%H:%M:%S") + ("." + frac if frac else "") + suffix


def date(s):
    """The ISO text Newtonsoft writes back if it would read `s` as a date, else None."""
    m = _MS.fullmatch(s)
    if m:
        ms = int(m.group(1))
        dt = _EPOCH + datetime.timedelta(milliseconds=ms)
        ticks = (ms % 1000) * 10000
        return _iso(dt.replace(microsecond=0), ticks, "+00:00" if m.group(2) else "Z")
    if not (19 <= len(s) <= 40 and s[0].isdigit() and s[10] == "T"):
        return None
    m = _ISO.fullmatch(s)
    if not m:
        return None
    y, mo, d, h, mi, sec = (int(g) for g in m.group(1, 2, 3, 4, 5, 6))
    try:
        dt = datetime.datetime(y, mo, d, h, mi, sec)
    except ValueError:
        return None
    ticks = int((m.group(7) or "").ljust(7, "0") or "0")
    zone = m.group(8)
    if zone is None:
        return _iso(dt, ticks, "")
    if zone == "Z":
        return _iso(dt, ticks, "Z")
    sign = 1 if zone[0] == "+" else -1
    offset = datetime.timedelta(hours=int(zone[1:3]), minutes=int(zone[4:6]))
    return _iso(dt - sign * offset, ticks, "+00:00")
